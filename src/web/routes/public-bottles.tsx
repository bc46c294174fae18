import { type CSSProperties, type ReactNode, useId, useRef, useState } from "react";
import type { BottleCard as BottleCardData } from "../../common/bottles.ts";
import { countryName, flagOf } from "../../common/country.ts";
import { Bottle, bottleVariants } from "../components/Bottle.tsx";
import { BottleCard } from "../components/BottleCard.tsx";
import { BottleModal } from "../components/bottle/BottleModal.tsx";
import { PageIntro } from "../components/PageIntro.tsx";
import { PageLink } from "../components/PageLink.tsx";
import { CloudLightning, Heart, House, LoaderCircle, PenLine, RotateCcw } from "../icons.ts";
import { useI18n } from "../lib/i18n.tsx";
import { useReturningBottle } from "../lib/returning-bottle.ts";
import { trpc } from "../lib/trpc.ts";
import "./public-bottles.css";

/**
 * Where the bottles float, as % of the ocean's width and height: 12 set places in an area
 * 600 px high. Four loose columns keep them apart from 360 px to 1440 px wide.
 */
const POSITIONS: ReadonlyArray<{ x: number; y: number; tilt: number }> = [
  { x: 12, y: 19, tilt: -10 },
  { x: 37, y: 16, tilt: 8 },
  { x: 63, y: 22, tilt: -6 },
  { x: 88, y: 17, tilt: 12 },
  { x: 14, y: 50, tilt: 9 },
  { x: 39, y: 46, tilt: -12 },
  { x: 62, y: 53, tilt: 6 },
  { x: 86, y: 47, tilt: -8 },
  { x: 11, y: 80, tilt: -5 },
  { x: 37, y: 83, tilt: 10 },
  { x: 64, y: 78, tilt: -10 },
  { x: 88, y: 82, tilt: 7 },
];
/** The page shows at most this many of the bottles it fetches: one for each place. */
const SHOWN = POSITIONS.length;
/** The light on the water's surface: two periods of a gentle wave, scrolled by half. */
const SURFACE_PATH = "M0 9 Q60 1 120 9 T240 9 T360 9 T480 9 T600 9 T720 9 T840 9 T960 9";
/** Seconds between the bottles' bobbing, so they do not rise and fall together. */
const BOB_STAGGER_S = 0.37;

export function PublicBottlesPage() {
  const { LL, locale } = useI18n();
  const list = trpc.bottles.publicList.useQuery();
  // Back from signing in to like or report it: the bottle they were reading, open again.
  const returning = useReturningBottle();
  const [modalOpen, setModalOpen] = useState(returning !== null);
  // The bottle as it was when opened: kept while the dialog closes, or if a refetch drops it.
  const [opened, setOpened] = useState<BottleCardData | null>(returning);
  const opener = useRef<HTMLButtonElement | null>(null);
  const headingId = useId();

  const bottles = (list.data?.bottles ?? []).slice(0, SHOWN);
  const open = bottles.find((b) => b.id === opened?.id) ?? opened;

  const reload = () => window.location.reload();

  let body: ReactNode;
  if (list.isPending) {
    body = (
      <div className="public-ocean public-ocean--message">
        <div className="public-state" role="status">
          <LoaderCircle aria-hidden="true" className="spinner public-state__spinner" />
          <p>{LL.publicBottles.loading()}</p>
        </div>
      </div>
    );
  } else if (list.isError) {
    body = (
      <div className="public-ocean public-ocean--message">
        <div className="public-state" role="alert">
          <CloudLightning aria-hidden="true" className="public-state__icon is-error" />
          <p>{LL.publicBottles.error()}</p>
          <button type="button" className="button button--primary" onClick={reload}>
            <RotateCcw aria-hidden="true" />
            {LL.publicBottles.tryAgain()}
          </button>
        </div>
      </div>
    );
  } else if (bottles.length === 0) {
    body = (
      <div className="public-ocean public-ocean--message">
        <div className="public-state">
          <Bottle variant="blue" className="public-state__bottle" />
          <p>{LL.publicBottles.empty()}</p>
          <div className="button-row">
            <PageLink to="create" icon={PenLine} className="button button--primary">
              {LL.publicBottles.create()}
            </PageLink>
            <PageLink to="" icon={House} className="button button--ghost">
              {LL.publicBottles.returnHome()}
            </PageLink>
          </div>
        </div>
      </div>
    );
  } else {
    body = (
      <>
        <p className="public-hint">{LL.publicBottles.hint()}</p>
        <div className="public-ocean">
          <svg
            className="public-ocean__surface"
            viewBox="0 0 960 18"
            preserveAspectRatio="none"
            aria-hidden="true"
            focusable="false"
          >
            <path d={SURFACE_PATH} />
          </svg>
          <ul className="public-ocean__bottles" aria-label={LL.publicBottles.ocean()}>
            {bottles.map((bottle, index) => {
              const position = POSITIONS[index] ?? { x: 50, y: 50, tilt: 0 };
              const country = countryName(bottle.country.code, locale);
              return (
                <li
                  key={bottle.id}
                  className="public-bottle"
                  style={
                    {
                      left: `${position.x}%`,
                      top: `${position.y}%`,
                      "--tilt": `${position.tilt}deg`,
                      "--delay": `${-index * BOB_STAGGER_S}s`,
                    } as CSSProperties
                  }
                >
                  <button
                    type="button"
                    className="public-bottle__button"
                    aria-haspopup="dialog"
                    onClick={(event) => {
                      opener.current = event.currentTarget;
                      setOpened(bottle);
                      setModalOpen(true);
                    }}
                  >
                    <span className="public-bottle__float">
                      <Bottle variant={bottleVariants[index % bottleVariants.length] ?? "blue"} />
                    </span>
                    <span className="public-bottle__tag" aria-hidden="true">
                      <span>{flagOf(bottle.country.code)}</span>
                      <Heart />
                      <span>{bottle.likeCount}</span>
                    </span>
                    <span className="visually-hidden">
                      {LL.publicBottles.bottle({ country, count: bottle.likeCount })}
                    </span>
                  </button>
                </li>
              );
            })}
          </ul>
        </div>
      </>
    );
  }

  return (
    <div className="container public-bottles">
      <PageIntro title={LL.publicBottles.title()}>{LL.publicBottles.subtitle()}</PageIntro>
      {body}

      <BottleModal
        open={modalOpen}
        onOpenChange={setModalOpen}
        labelledBy={headingId}
        returnFocus={() => opener.current}
      >
        {open && (
          <BottleCard
            key={open.id}
            bottle={open}
            headingId={headingId}
            className="bottle-card--modal"
          />
        )}
      </BottleModal>
    </div>
  );
}
