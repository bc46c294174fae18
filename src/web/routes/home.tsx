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

/** Home: the loading overlay, the title and the two main buttons over the sea, then more. */
export function HomePage() {
  const { LL } = useI18n();
  const [overlay, setOverlay] = useState<OverlayState>("shown");
  const titleId = useId();

  useEffect(() => {
    const timers = [
      setTimeout(() => setOverlay("fading"), LOADING_OVERLAY_MS),
      setTimeout(() => setOverlay("gone"), LOADING_OVERLAY_MS + OVERLAY_FADE_MS),
    ];
    return () => {
      for (const timer of timers) clearTimeout(timer);
    };
  }, []);

  return (
    <div className="home">
      {overlay !== "gone" && (
        <div
          className={`page-loading home-loading${overlay === "fading" ? " is-fading" : ""}`}
          role="status"
        >
          <Bottle variant="blue" className="home-loading__bottle" />
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
