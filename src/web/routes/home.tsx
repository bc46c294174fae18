import { Link } from "@tanstack/react-router";
import {
  ArrowRight,
  CircleQuestionMark,
  Compass,
  Globe,
  Heart,
  HeartHandshake,
  Inbox,
  Lightbulb,
  type LucideIcon,
  PenLine,
  Sailboat,
  Search,
  Send,
  X,
} from "lucide-react";
import {
  type CSSProperties,
  lazy,
  Suspense,
  useCallback,
  useEffect,
  useId,
  useRef,
  useState,
} from "react";
import { localizedPath, type PageSlug } from "../../common/locales.ts";
import { Bottle, type BottleVariant, bottleVariants } from "../components/Bottle.tsx";
import { WaveBand } from "../components/WaveBand.tsx";
import { useI18n } from "../lib/i18n.tsx";
import { trpc } from "../lib/trpc.ts";
import "./home.css";

// A bottle's dialog (the card, Radix's dialog) is not part of the first load: it is fetched when
// the visitor reaches for the sea.
const loadSeaBottle = () => import("../components/bottle/SeaBottle.tsx");
const SeaBottle = lazy(() => loadSeaBottle().then((m) => ({ default: m.SeaBottle })));

/** How long the loading overlay covers the page (spec 9). */
const LOADING_OVERLAY_MS = 800;
/** How long the overlay then takes to fade out (matches .home-loading's transition). */
const OVERLAY_FADE_MS = 400;
/** The tip appears this long after the page opens (spec 9)… */
const TIP_SHOW_MS = 3000;
/** …and hides this long after the page opens, unless closed earlier (spec 9). */
const TIP_HIDE_MS = 8000;
/** A clicked bottle drifts away and leaves the page this long after the click (spec 9). */
const DRIFT_REMOVE_MS = 6000;
/** Floating bottles in the sea (spec 9). */
const BOTTLE_COUNT = 8;
/** The sea is cut into a grid with one bottle per cell, so bottles never pile up. */
const SEA_COLUMNS = 4;
const SEA_ROWS = 2;
/** How far each bottle may wander from its cell's centre, as a share of the cell. */
const JITTER_X = 0.25;
const JITTER_Y = 0.2;
const SCALE_RANGE = [0.8, 1.1] as const;
const ROTATE_RANGE_DEG = [-18, 18] as const;
/** Bobbing phase offset, so the bottles do not rise and fall together. */
const DELAY_RANGE_S = [0, 4] as const;

/** A bottle of the home sea (spec 3, "Home floating bottle"). Positions are % of the sea. */
interface FloatingBottle {
  id: number;
  x: number;
  y: number;
  scale: number;
  delay: number;
  rotate: number;
  variant: BottleVariant;
  isDrifting: boolean;
}

function between([min, max]: readonly [number, number]): number {
  return min + Math.random() * (max - min);
}

function shuffled<T>(items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    const a = out[i];
    const b = out[j];
    if (a === undefined || b === undefined) continue;
    out[i] = b;
    out[j] = a;
  }
  return out;
}

function createBottles(): FloatingBottle[] {
  // Every colour shows up, in a random order.
  const colours = shuffled(
    Array.from({ length: BOTTLE_COUNT }, (_, i) => bottleVariants[i % bottleVariants.length]),
  );
  const cellWidth = 100 / SEA_COLUMNS;
  const cellHeight = 100 / SEA_ROWS;
  return Array.from({ length: BOTTLE_COUNT }, (_, index) => {
    const column = index % SEA_COLUMNS;
    const row = Math.floor(index / SEA_COLUMNS) % SEA_ROWS;
    return {
      id: index + 1,
      x: cellWidth * (column + 0.5 + between([-JITTER_X, JITTER_X])),
      y: cellHeight * (row + 0.5 + between([-JITTER_Y, JITTER_Y])),
      scale: between(SCALE_RANGE),
      delay: between(DELAY_RANGE_S),
      rotate: between(ROTATE_RANGE_DEG),
      variant: colours[index] ?? "blue",
      isDrifting: false,
    };
  });
}

type OverlayState = "shown" | "fading" | "gone";

const features: ReadonlyArray<{
  key: "send" | "receive" | "warmth";
  Icon: LucideIcon;
  tone: BottleVariant;
}> = [
  { key: "send", Icon: Send, tone: "blue" },
  { key: "receive", Icon: Inbox, tone: "green" },
  { key: "warmth", Icon: Heart, tone: "amber" },
];

const storyItems: ReadonlyArray<{ key: "about" | "howItWorks" | "mission"; Icon: LucideIcon }> = [
  { key: "about", Icon: Compass },
  { key: "howItWorks", Icon: Sailboat },
  { key: "mission", Icon: HeartHandshake },
];

const moreLinks: ReadonlyArray<{
  key: "faq" | "publicBottles";
  slug: PageSlug;
  Icon: LucideIcon;
  tone: BottleVariant;
}> = [
  { key: "faq", slug: "faq", Icon: CircleQuestionMark, tone: "purple" },
  { key: "publicBottles", slug: "public-bottles", Icon: Globe, tone: "blue" },
];

export function HomePage() {
  const { LL, prefix } = useI18n();
  const [overlay, setOverlay] = useState<OverlayState>("shown");
  const [tipVisible, setTipVisible] = useState(false);
  // Positions are drawn once per visit, not on every render.
  const [bottles, setBottles] = useState<FloatingBottle[]>(createBottles);
  const [drifted, setDrifted] = useState(0);
  // The message a clicked bottle holds: which public bottle (0 to 1), and whether it is open.
  const [opened, setOpened] = useState<{ open: boolean; pick: number }>();
  const utils = trpc.useUtils();
  const afterDialog = useRef<HTMLElement | null>(null);
  const fieldRef = useRef<HTMLDivElement>(null);
  const tipRef = useRef<HTMLDivElement>(null);
  const driftTimers = useRef(new Set<ReturnType<typeof setTimeout>>());
  const titleId = useId();
  const featuresId = useId();
  const moreId = useId();

  const hideTip = useCallback(() => {
    // Keep keyboard users in the sea rather than dropping focus onto the page body.
    if (tipRef.current?.contains(document.activeElement)) fieldRef.current?.focus();
    setTipVisible(false);
  }, []);

  useEffect(() => {
    const timers = [
      setTimeout(() => setOverlay("fading"), LOADING_OVERLAY_MS),
      setTimeout(() => setOverlay("gone"), LOADING_OVERLAY_MS + OVERLAY_FADE_MS),
      setTimeout(() => setTipVisible(true), TIP_SHOW_MS),
      setTimeout(hideTip, TIP_HIDE_MS),
    ];
    return () => {
      for (const timer of timers) clearTimeout(timer);
    };
  }, [hideTip]);

  useEffect(() => {
    const pending = driftTimers.current;
    return () => {
      for (const timer of pending) clearTimeout(timer);
      pending.clear();
    };
  }, []);

  const release = (bottle: FloatingBottle, button: HTMLButtonElement) => {
    if (bottle.isDrifting) return;
    if (document.activeElement === button) {
      // The button is about to be disabled and later removed: hand focus to a neighbour.
      const others = Array.from(
        fieldRef.current?.querySelectorAll<HTMLButtonElement>(".home-bottle:not(:disabled)") ?? [],
      );
      const at = others.indexOf(button);
      const next = others[at + 1] ?? others[at - 1];
      if (next && next !== button) next.focus();
      else fieldRef.current?.focus();
    }
    setBottles((list) => list.map((b) => (b.id === bottle.id ? { ...b, isDrifting: true } : b)));
    setDrifted((count) => count + 1);
    const timer = setTimeout(() => {
      driftTimers.current.delete(timer);
      setBottles((list) => list.filter((b) => b.id !== bottle.id));
    }, DRIFT_REMOVE_MS);
    driftTimers.current.add(timer);
  };

  /** Fetches the dialog's code and the public bottles as the visitor's pointer nears the sea. */
  const prepareSea = () => {
    void loadSeaBottle();
    void utils.bottles.publicList.prefetch();
  };

  const open = (bottle: FloatingBottle, button: HTMLButtonElement) => {
    if (bottle.isDrifting) return;
    release(bottle, button);
    // Where release() left focus (a neighbour, or the sea) is where it returns after the dialog.
    const focused = document.activeElement;
    afterDialog.current =
      focused instanceof HTMLElement && focused !== document.body ? focused : fieldRef.current;
    setOpened({ open: true, pick: Math.random() });
  };

  const seaStyle = { "--drift-ms": `${DRIFT_REMOVE_MS}ms` } as CSSProperties;

  return (
    <div className="home">
      {overlay !== "gone" && (
        <div
          className={overlay === "fading" ? "home-loading is-fading" : "home-loading"}
          role="status"
        >
          <Bottle variant="blue" className="home-loading__bottle" />
          <p className="home-loading__text">{LL.home.loading()}</p>
        </div>
      )}

      <section className="home-hero" aria-labelledby={titleId}>
        <div className="container home-hero__intro">
          <h1 id={titleId} className="home-hero__title">
            {LL.home.title()}
          </h1>
          <p className="home-hero__lead">{LL.home.lead()}</p>
          <div className="button-row">
            <Link
              to={localizedPath(prefix, "create")}
              className="button button--primary button--large"
            >
              <PenLine aria-hidden="true" />
              {LL.home.actions.write()}
            </Link>
            <Link
              to={localizedPath(prefix, "discover")}
              className="button button--secondary button--large"
            >
              <Search aria-hidden="true" />
              {LL.home.actions.find()}
            </Link>
          </div>
        </div>

        <div className="home-sea" style={seaStyle}>
          <WaveBand className="home-sea__waves home-sea__waves--back" />
          <WaveBand className="home-sea__waves home-sea__waves--front" />
          <div className="home-sea__inner">
            <div className="home-sea__tip-slot" role="status">
              {tipVisible && (
                <div className="home-tip" ref={tipRef}>
                  <Lightbulb aria-hidden="true" className="home-tip__icon" />
                  <p className="home-tip__text">{LL.home.sea.tip()}</p>
                  <button type="button" className="home-tip__close" onClick={hideTip}>
                    <X aria-hidden="true" />
                    <span className="visually-hidden">{LL.common.close()}</span>
                  </button>
                </div>
              )}
            </div>
            <div ref={fieldRef} className="home-sea__field" tabIndex={-1}>
              <ul className="home-sea__bottles" aria-label={LL.home.sea.label()}>
                {bottles.map((bottle) => (
                  <li key={bottle.id}>
                    <button
                      type="button"
                      className={bottle.isDrifting ? "home-bottle is-drifting" : "home-bottle"}
                      style={
                        {
                          left: `${bottle.x}%`,
                          top: `${bottle.y}%`,
                          "--scale": bottle.scale,
                          "--rotate": `${bottle.rotate}deg`,
                          "--delay": `${-bottle.delay}s`,
                          "--drift-x": bottle.x < 50 ? "-140px" : "140px",
                        } as CSSProperties
                      }
                      disabled={bottle.isDrifting}
                      onClick={(event) => open(bottle, event.currentTarget)}
                      onPointerEnter={prepareSea}
                      onFocus={prepareSea}
                    >
                      <span className="home-bottle__float">
                        <Bottle variant={bottle.variant} />
                      </span>
                      <span className="visually-hidden">
                        {LL.home.sea.bottle({ number: bottle.id })}
                      </span>
                    </button>
                  </li>
                ))}
              </ul>
              {bottles.length === 0 && <p className="home-sea__empty">{LL.home.sea.empty()}</p>}
            </div>
            <p className="visually-hidden" aria-live="polite">
              {/* A trailing no-break space on every other drift makes readers repeat the line. */}
              {drifted > 0 ? `${LL.home.sea.drifted()}${drifted % 2 ? "" : "\u00a0"}` : ""}
            </p>
          </div>
        </div>
      </section>

      {opened && (
        <Suspense fallback={null}>
          <SeaBottle
            open={opened.open}
            pick={opened.pick}
            returnFocus={() => afterDialog.current}
            onOpenChange={(next) => setOpened((current) => current && { ...current, open: next })}
          />
        </Suspense>
      )}

      <section className="container home-section" aria-labelledby={featuresId}>
        <h2 id={featuresId} className="home-section__title">
          {LL.home.features.title()}
        </h2>
        <ul className="home-features">
          {features.map(({ key, Icon, tone }) => (
            <li key={key} className={`card home-feature home-tone--${tone}`}>
              <span className="home-icon" aria-hidden="true">
                <Icon />
              </span>
              <h3 className="home-feature__title">{LL.home.features[key].title()}</h3>
              <p className="home-feature__body">{LL.home.features[key].body()}</p>
            </li>
          ))}
        </ul>
      </section>

      <section className="container home-section">
        <div className="card home-story">
          {storyItems.map(({ key, Icon }) => (
            <div key={key} className="home-story__item">
              <Icon aria-hidden="true" className="home-story__icon" />
              <h2 className="home-story__title">{LL.home.story[key].title()}</h2>
              <p className="home-story__body">{LL.home.story[key].body()}</p>
            </div>
          ))}
        </div>
      </section>

      <section className="container home-section" aria-labelledby={moreId}>
        <h2 id={moreId} className="home-section__title">
          {LL.home.more.title()}
        </h2>
        <ul className="home-links">
          {moreLinks.map(({ key, slug, Icon, tone }) => (
            <li key={key} className={`card home-link-card home-tone--${tone}`}>
              <span className="home-icon" aria-hidden="true">
                <Icon />
              </span>
              <div className="home-link-card__text">
                <h3 className="home-link-card__title">
                  <Link to={localizedPath(prefix, slug)} className="home-link-card__link">
                    {LL.home.more[key].title()}
                  </Link>
                </h3>
                <p className="home-link-card__body">{LL.home.more[key].body()}</p>
              </div>
              <ArrowRight aria-hidden="true" className="home-link-card__arrow" />
            </li>
          ))}
        </ul>
      </section>
    </div>
  );
}
