import {
  type CSSProperties,
  lazy,
  Suspense,
  useCallback,
  useEffect,
  useRef,
  useState,
} from "react";
import type { BottleCard } from "../../../common/bottles.ts";
import { Lightbulb, X } from "../../icons.ts";
import { useI18n } from "../../lib/i18n.tsx";
import { useReturningBottle } from "../../lib/returning-bottle.ts";
import { trpc } from "../../lib/trpc.ts";
import { Bottle } from "../Bottle.tsx";
import { WaveBand } from "../WaveBand.tsx";
import { createBottles, DRIFT_REMOVE_MS, type FloatingBottle } from "./floating-bottles.ts";

// A bottle's dialog (the card, Radix's dialog) is not part of the first load: it is fetched when
// the visitor reaches for the sea.
const loadSeaBottle = () => import("../bottle/SeaBottle.tsx");
const SeaBottle = lazy(() => loadSeaBottle().then((m) => ({ default: m.SeaBottle })));

/** A touch screen, where a bottle is tapped rather than clicked. */
const touchScreen = () =>
  typeof matchMedia === "function" && matchMedia("(hover: none) and (pointer: coarse)").matches;

/** The tip appears this long after the page opens… */
const TIP_SHOW_MS = 3000;
/** …and hides this long after the page opens, unless closed earlier. */
const TIP_HIDE_MS = 8000;

/**
 * The home page's sea: eight floating bottles and the tip. A clicked bottle opens a random
 * public bottle's card and drifts away, leaving the page 6 s later.
 */
export function HomeSea() {
  const { LL } = useI18n();
  const [tipVisible, setTipVisible] = useState(false);
  // Positions are drawn once per visit, not on every render.
  const [bottles, setBottles] = useState<FloatingBottle[]>(createBottles);
  const [drifted, setDrifted] = useState(0);
  // The message a clicked bottle holds: which public bottle (0 to 1), and whether it is open;
  // back from signing in to like or report one, that one, open again.
  const returning = useReturningBottle();
  const [opened, setOpened] = useState<
    { open: boolean; pick: number; bottle?: BottleCard } | undefined
  >(returning ? { open: true, pick: 0, bottle: returning } : undefined);
  const utils = trpc.useUtils();
  const afterDialog = useRef<HTMLElement | null>(null);
  const fieldRef = useRef<HTMLDivElement>(null);
  const tipRef = useRef<HTMLDivElement>(null);
  const driftTimers = useRef(new Set<ReturnType<typeof setTimeout>>());

  const hideTip = useCallback(() => {
    // Keep keyboard users in the sea rather than dropping focus onto the page body.
    if (tipRef.current?.contains(document.activeElement)) fieldRef.current?.focus();
    setTipVisible(false);
  }, []);

  useEffect(() => {
    const timers = [
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
    <>
      <div className="home-sea" style={seaStyle}>
        <WaveBand className="home-sea__waves" back />
        <WaveBand className="home-sea__waves" />
        <div className="home-sea__inner">
          <div className="home-sea__tip-slot" role="status">
            {tipVisible && (
              <div className="home-tip" ref={tipRef}>
                <Lightbulb aria-hidden="true" className="home-tip__icon" />
                <p className="home-tip__text">
                  {touchScreen() ? LL.home.sea.tipTouch() : LL.home.sea.tip()}
                </p>
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
      {opened && (
        <Suspense fallback={null}>
          <SeaBottle
            open={opened.open}
            pick={opened.pick}
            kept={opened.bottle}
            returnFocus={() => afterDialog.current}
            onOpenChange={(next) => setOpened((current) => current && { ...current, open: next })}
          />
        </Suspense>
      )}
    </>
  );
}
