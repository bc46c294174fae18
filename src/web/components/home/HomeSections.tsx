import { Link } from "@tanstack/react-router";
import { useId } from "react";
import { localizedPath, type PageSlug } from "../../../common/locales.ts";
import {
  ArrowRight,
  CircleQuestionMark,
  Compass,
  Globe,
  Heart,
  HeartHandshake,
  Inbox,
  type LucideIcon,
  Sailboat,
  Send,
} from "../../icons.ts";
import { useI18n } from "../../lib/i18n.tsx";
import type { BottleVariant } from "../Bottle.tsx";

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

/** Below the sea: the three features, the About / How It Works / Our Mission text, more links. */
export function HomeSections() {
  const { LL, prefix } = useI18n();
  const featuresId = useId();
  const moreId = useId();
  return (
    <>
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
    </>
  );
}
