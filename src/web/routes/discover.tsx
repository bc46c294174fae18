import { type CSSProperties, useEffect, useRef, useState } from "react";
import type { BottleCard as BottleCardData } from "../../common/bottles.ts";
import { Bottle, bottleVariants } from "../components/Bottle.tsx";
import { BottleCard } from "../components/BottleCard.tsx";
import { PageIntro } from "../components/PageIntro.tsx";
import { PageLink } from "../components/PageLink.tsx";
import { WaveBand } from "../components/WaveBand.tsx";
import { CloudLightning, PenLine, RotateCcw, Search, Waves } from "../icons.ts";
import { appCodeOf, errorMessage } from "../lib/errors.ts";
import { useI18n } from "../lib/i18n.tsx";
import { useReturningBottle } from "../lib/returning-bottle.ts";
import { trpc } from "../lib/trpc.ts";
import "./discover.css";

/** Searching lasts at least this long, while the ocean is asked… */
const SEARCH_MS = 2000;
/** …a bottle found rises for this long… */
const RISE_MS = 2000;
/** …and opening it takes this long before the card shows. */
const OPEN_MS = 1000;

type Phase = "searching" | "rising" | "opening" | "done" | "empty" | "failed";

/** The phases with the sea scene and the progress bar, in order. */
const searchPhases = ["searching", "rising", "opening"] as const;
type SearchPhase = (typeof searchPhases)[number];

const phaseMs: Record<SearchPhase, number> = {
  searching: SEARCH_MS,
  rising: RISE_MS,
  opening: OPEN_MS,
};

/** What the status line says in each phase. */
const statusKeys = {
  searching: "searching",
  rising: "rising",
  opening: "opening",
  done: "found",
  empty: "empty",
  failed: "failedTitle",
} as const satisfies Record<Phase, string>;

function isSearchPhase(phase: Phase): phase is SearchPhase {
  return (searchPhases as ReadonlyArray<Phase>).includes(phase);
}

export function DiscoverPage() {
  const { LL } = useI18n();
  const utils = trpc.useUtils();
  const utilsRef = useRef(utils);
  utilsRef.current = utils;

  // Back from signing in to like or report it: the bottle they were reading, not a new search.
  const returning = useReturningBottle();
  const [phase, setPhase] = useState<Phase>(returning ? "done" : "searching");
  const [bottle, setBottle] = useState<BottleCardData | null>(returning);
  const [failure, setFailure] = useState<unknown>(null);
  // Nothing found, but the visitor's own bottle is out there: say so, not that the sea is empty.
  const [onlyYours, setOnlyYours] = useState(false);
  // Each search is one run; "Find another bottle" and "Try again" start the next.
  const [run, setRun] = useState(0);
  // Focus follows the search only when the visitor started it, never on page load.
  const focusAfterRun = useRef(false);
  const statusRef = useRef<HTMLParagraphElement>(null);
  const stageRef = useRef<HTMLElement>(null);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `run` restarts the sequence.
  useEffect(() => {
    if (run === 0 && returning) return;
    let cancelled = false;
    const timers: ReturnType<typeof setTimeout>[] = [];
    const wait = (ms: number) =>
      new Promise<void>((resolve) => {
        timers.push(setTimeout(resolve, ms));
      });

    // The ocean is asked at once, during the search: a bottle rises only when one was found,
    // so an empty ocean never shows "A bottle appears!" first.
    const search = async () => {
      const [answer] = await Promise.allSettled([
        utilsRef.current.bottles.discover.fetch(undefined, { staleTime: 0, retry: false }),
        wait(SEARCH_MS),
      ]);
      if (cancelled) return;
      if (answer.status === "rejected") {
        setFailure(answer.reason);
        setPhase("failed");
        return;
      }
      const found = answer.value.bottle;
      if (!found) {
        setOnlyYours(answer.value.onlyYours);
        setPhase("empty");
        return;
      }
      setPhase("rising");
      await wait(RISE_MS);
      if (cancelled) return;
      setPhase("opening");
      await wait(OPEN_MS);
      if (cancelled) return;
      setBottle(found);
      setPhase("done");
    };
    void search();

    return () => {
      cancelled = true;
      for (const timer of timers) clearTimeout(timer);
    };
  }, [run]);

  // After a search the visitor started, take them to what it found.
  useEffect(() => {
    if (!focusAfterRun.current || isSearchPhase(phase)) return;
    focusAfterRun.current = false;
    if (phase === "done") {
      stageRef.current?.querySelector<HTMLElement>(".bottle-card__country")?.focus();
    } else {
      statusRef.current?.focus();
    }
  }, [phase]);

  const restart = () => {
    focusAfterRun.current = true;
    setBottle(null);
    setFailure(null);
    setPhase("searching");
    setRun((value) => value + 1);
    // The button that was clicked goes away; the status line takes focus meanwhile.
    requestAnimationFrame(() => statusRef.current?.focus());
  };

  const searching = isSearchPhase(phase);
  const status =
    phase === "empty" && onlyYours ? LL.discover.onlyYours() : LL.discover[statusKeys[phase]]();
  const failureBody =
    appCodeOf(failure) === "RATE_LIMITED" ? errorMessage(LL, failure) : LL.discover.failedBody();
  const variant = bottleVariants[run % bottleVariants.length] ?? "blue";
  const step = searching ? searchPhases.indexOf(phase) + 1 : searchPhases.length;

  return (
    <div className="container discover">
      <PageIntro title={LL.discover.title()}>{LL.discover.subtitle()}</PageIntro>

      <section ref={stageRef} className={`discover-stage is-${phase}`} aria-busy={searching}>
        {searching && (
          <div
            className={`discover-scene is-${phase}`}
            style={{ "--phase-ms": `${phaseMs[phase]}ms` } as CSSProperties}
            aria-hidden="true"
          >
            <div className="discover-scene__beam" />
            <Search className="discover-scene__glass" />
            <div className="discover-scene__bottle">
              <Bottle variant={variant} />
            </div>
            <div className="discover-scene__ripples">
              <span />
              <span />
            </div>
            <WaveBand className="discover-scene__waves" back shape="swell" />
            <WaveBand
              className="discover-scene__waves discover-scene__waves--front"
              shape="swell"
            />
          </div>
        )}

        {(phase === "empty" || phase === "failed") && (
          <div className={`discover-stage__icon is-${phase}`} aria-hidden="true">
            {phase === "empty" ? <Waves /> : <CloudLightning />}
          </div>
        )}

        <p
          ref={statusRef}
          role="status"
          tabIndex={-1}
          className={phase === "done" ? "visually-hidden" : `discover-status is-${phase}`}
        >
          {phase === "failed" ? (
            <>
              <strong className="discover-status__title">{status}</strong>
              <span className="discover-status__body">{failureBody}</span>
            </>
          ) : (
            status
          )}
        </p>

        {searching && (
          <div
            className="discover-progress"
            role="progressbar"
            aria-label={LL.discover.progress()}
            aria-valuemin={0}
            aria-valuemax={searchPhases.length}
            aria-valuenow={step}
            aria-valuetext={status}
          >
            <span className={`discover-progress__bar is-${phase}`} />
          </div>
        )}

        {phase === "done" && bottle && (
          <BottleCard key={bottle.id} bottle={bottle} className="discover-card" />
        )}

        {!searching && (
          <div className="button-row discover-actions">
            <button
              type="button"
              className="button button--primary button--large"
              onClick={restart}
            >
              {phase === "done" ? <Search aria-hidden="true" /> : <RotateCcw aria-hidden="true" />}
              {phase === "done" ? LL.discover.findAnother() : LL.discover.tryAgain()}
            </button>
            {phase === "empty" && (
              <PageLink
                to="create"
                icon={PenLine}
                className="button button--secondary button--large"
              >
                {LL.discover.write()}
              </PageLink>
            )}
          </div>
        )}
      </section>
    </div>
  );
}
