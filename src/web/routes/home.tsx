import { useEffect, useId, useState } from "react";
import { Bottle } from "../components/Bottle.tsx";
import { HomeSea } from "../components/home/HomeSea.tsx";
import { HomeSections } from "../components/home/HomeSections.tsx";
import { PageHeading } from "../components/PageIntro.tsx";
import { PageLink } from "../components/PageLink.tsx";
import { PenLine, Search } from "../icons.ts";
import { useI18n } from "../lib/i18n.tsx";
import "./home.css";

/** How long the loading overlay covers the page while the sea settles. */
const LOADING_OVERLAY_MS = 800;
/** How long the overlay then takes to fade out (matches .home-loading's transition). */
const OVERLAY_FADE_MS = 400;

type OverlayState = "shown" | "fading" | "gone";

/** Whether the home has been shown in this document before: only the first load waited. */
let shownBefore = false;

/**
 * How long the overlay still covers the page when the home first mounts: the server's loading
 * screen (the same words) has been on screen since the first paint, so the two together last
 * the overlay's time, and not at all once the wait for the app has already been that long (a
 * slow connection), where covering words already there would only delay them.
 */
function overlayHold(): number {
  if (shownBefore) return LOADING_OVERLAY_MS;
  const paint = performance.getEntriesByName("first-contentful-paint")[0];
  const waited = performance.now() - (paint?.startTime ?? 0);
  return Math.min(LOADING_OVERLAY_MS, Math.max(0, LOADING_OVERLAY_MS - waited));
}

/** Home: the loading overlay, the title and the two main buttons over the sea, then more. */
export function HomePage() {
  const { LL } = useI18n();
  const [hold] = useState(overlayHold);
  const [overlay, setOverlay] = useState<OverlayState>(hold > 0 ? "shown" : "gone");
  const titleId = useId();

  useEffect(() => {
    shownBefore = true;
    if (hold === 0) return;
    const timers = [
      setTimeout(() => setOverlay("fading"), hold),
      setTimeout(() => setOverlay("gone"), hold + OVERLAY_FADE_MS),
    ];
    return () => {
      for (const timer of timers) clearTimeout(timer);
    };
  }, [hold]);

  return (
    <div className="home">
      {overlay !== "gone" && (
        <div
          className={`page-loading home-loading${overlay === "fading" ? " is-fading" : ""}`}
          role="status"
        >
          {/* Bobbing in an HTML box, which the compositor moves (see WaveBand). */}
          <span className="home-loading__bottle">
            <Bottle variant="blue" />
          </span>
          <p className="page-loading__text">{LL.home.loading()}</p>
        </div>
      )}

      <section className="home-hero" aria-labelledby={titleId}>
        <div className="container home-hero__intro">
          <PageHeading id={titleId} className="home-hero__title">
            {LL.home.title()}
          </PageHeading>
          <p className="home-hero__lead">{LL.home.lead()}</p>
          <div className="button-row">
            <PageLink to="create" icon={PenLine} className="button button--primary button--large">
              {LL.home.actions.write()}
            </PageLink>
            <PageLink
              to="discover"
              icon={Search}
              className="button button--secondary button--large"
            >
              {LL.home.actions.find()}
            </PageLink>
          </div>
        </div>
        <HomeSea />
      </section>

      <HomeSections />
    </div>
  );
}
