import { Link } from "@tanstack/react-router";
import {
  BottleWine,
  Compass,
  Earth,
  HandHeart,
  Leaf,
  Lock,
  type LucideIcon,
  Mail,
  MessagesSquare,
  PenLine,
  ShieldCheck,
  VenetianMask,
} from "lucide-react";
import { localizedPath } from "../../common/locales.ts";
import { PageIntro } from "../components/PageIntro.tsx";
import { about, type OfferIcon, type ValueIcon } from "../content/about.ts";
import { useI18n } from "../lib/i18n.tsx";
import { siteConfig } from "../lib/site.ts";
import "./about.css";

const offerIcons: Record<OfferIcon, LucideIcon> = {
  bottle: BottleWine,
  anonymous: VenetianMask,
  global: Earth,
  chat: MessagesSquare,
};

const valueIcons: Record<ValueIcon, LucideIcon> = {
  kindness: HandHeart,
  privacy: Lock,
  curiosity: Compass,
  safety: ShieldCheck,
};

/** The About page: English on both prefixes (spec 2); the header and footer keep the page's language. */
export function AboutPage() {
  const { prefix } = useI18n();
  const email = siteConfig().contactEmail;

  return (
    <div className="container about" lang="en">
      <PageIntro title={about.intro.title}>{about.intro.lead}</PageIntro>

      <section className="about__section about-community" aria-labelledby="about-community">
        <h2 id="about-community" className="about__heading">
          {about.community.title}
        </h2>
        <p className="about__text about__text--center">{about.community.body}</p>
        <ul className="about-stats">
          {about.community.stats.map((stat) => (
            <li key={stat.value} className="about-stats__item card">
              <span className="about-stats__value">{stat.value}</span>
              <span className="about-stats__label">{stat.label}</span>
            </li>
          ))}
        </ul>
      </section>

      <section className="about__section" aria-labelledby="about-offer">
        <h2 id="about-offer" className="about__heading">
          {about.offer.title}
        </h2>
        <p className="about__text about__text--center">{about.offer.lead}</p>
        <ul className="about-grid about-grid--four">
          {about.offer.items.map((item) => {
            const Icon = offerIcons[item.icon];
            return (
              <li key={item.icon} className="about-feature card">
                <span className="about-feature__icon" aria-hidden="true">
                  <Icon />
                </span>
                <h3 className="about-feature__title">{item.title}</h3>
                <p className="about-feature__body">{item.body}</p>
              </li>
            );
          })}
        </ul>
      </section>

      <section className="about__section about-story card" aria-labelledby="about-story">
        <h2 id="about-story" className="about__heading about__heading--start">
          {about.story.title}
        </h2>
        {about.story.paragraphs.map((paragraph) => (
          <p key={paragraph.slice(0, 24)} className="about__text">
            {paragraph}
          </p>
        ))}
      </section>

      <section className="about__section" aria-labelledby="about-values">
        <h2 id="about-values" className="about__heading">
          {about.values.title}
        </h2>
        <ul className="about-grid about-grid--four">
          {about.values.items.map((item) => {
            const Icon = valueIcons[item.icon];
            return (
              <li key={item.icon} className="about-feature about-feature--value card">
                <span className="about-feature__icon" aria-hidden="true">
                  <Icon />
                </span>
                <h3 className="about-feature__title">{item.title}</h3>
                <p className="about-feature__body">{item.body}</p>
              </li>
            );
          })}
        </ul>
      </section>

      <section className="about__section" aria-labelledby="about-steps">
        <h2 id="about-steps" className="about__heading">
          {about.steps.title}
        </h2>
        <ol className="about-steps">
          {about.steps.items.map((step, index) => (
            <li key={step.title} className="about-steps__item card">
              <span className="about-steps__number" aria-hidden="true">
                {index + 1}
              </span>
              <h3 className="about-steps__title">{step.title}</h3>
              <p className="about-steps__body">{step.body}</p>
            </li>
          ))}
        </ol>
      </section>

      <section className="about__section" aria-labelledby="about-testimonials">
        <h2 id="about-testimonials" className="about__heading">
          {about.testimonials.title}
        </h2>
        <ul className="about-grid about-grid--two">
          {about.testimonials.items.map((item) => (
            <li key={item.name} className="card about-quote">
              <figure className="about-quote__figure">
                <blockquote className="about-quote__text">
                  <p>{item.quote}</p>
                </blockquote>
                <figcaption className="about-quote__who">
                  {item.name}, {item.country}
                </figcaption>
              </figure>
            </li>
          ))}
        </ul>
      </section>

      <div className="about__section about-grid about-grid--two about-panels">
        <section className="card about-panel" aria-labelledby="about-contact">
          <span className="about-feature__icon" aria-hidden="true">
            <Mail />
          </span>
          <h2 id="about-contact" className="about-panel__title">
            {about.contact.title}
          </h2>
          <p className="about__text">{about.contact.body}</p>
          <p className="about-panel__actions">
            <Link to={localizedPath(prefix, "contact")} className="button button--ghost">
              <PenLine aria-hidden="true" />
              {about.contact.link}
            </Link>
          </p>
          {email && (
            <p className="about-panel__email">
              {about.contact.emailLead} <a href={`mailto:${email}`}>{email}</a>
            </p>
          )}
        </section>

        <section className="card about-panel about-panel--future" aria-labelledby="about-future">
          <span className="about-feature__icon about-feature__icon--leaf" aria-hidden="true">
            <Leaf />
          </span>
          <h2 id="about-future" className="about-panel__title">
            {about.future.title}
          </h2>
          <p className="about__text">{about.future.body}</p>
        </section>
      </div>

      <section className="about-cta" aria-labelledby="about-cta">
        <h2 id="about-cta" className="about-cta__title">
          {about.cta.title}
        </h2>
        <p className="about-cta__body">{about.cta.body}</p>
        {/* The spec names /en/create: the call to action is part of the English-only page. */}
        <Link to={localizedPath("en", "create")} className="button button--primary button--large">
          <BottleWine aria-hidden="true" />
          {about.cta.button}
        </Link>
      </section>
    </div>
  );
}
