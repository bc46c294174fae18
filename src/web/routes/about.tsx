import { AboutPanel, AboutSection, FeatureGrid } from "../components/AboutParts.tsx";
import { PageIntro } from "../components/PageIntro.tsx";
import { PageLink } from "../components/PageLink.tsx";
import { about, type OfferIcon, type ValueIcon } from "../content/about.ts";
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
} from "../icons.ts";
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

/** The About page: English on both prefixes; the header and footer keep the page's language. */
export function AboutPage() {
  const email = siteConfig().contactEmail;

  return (
    <div className="container about" lang="en">
      <PageIntro title={about.intro.title}>{about.intro.lead}</PageIntro>

      <AboutSection
        id="community"
        kind="community"
        title={about.community.title}
        lead={about.community.body}
      >
        <ul className="about-stats">
          {about.community.stats.map((stat) => (
            <li key={stat.value} className="about-stats__item card">
              <span className="about-stats__value">{stat.value}</span>
              <span className="about-stats__label">{stat.label}</span>
            </li>
          ))}
        </ul>
      </AboutSection>

      <AboutSection id="offer" title={about.offer.title} lead={about.offer.lead}>
        <FeatureGrid
          items={about.offer.items}
          icons={offerIcons}
          cardClassName="about-feature card"
        />
      </AboutSection>

      <AboutSection id="story" kind="story" title={about.story.title}>
        {about.story.paragraphs.map((paragraph) => (
          <p key={paragraph.slice(0, 24)} className="about__text">
            {paragraph}
          </p>
        ))}
      </AboutSection>

      <AboutSection id="values" title={about.values.title}>
        <FeatureGrid
          items={about.values.items}
          icons={valueIcons}
          cardClassName="about-feature about-feature--value card"
        />
      </AboutSection>

      <AboutSection id="steps" title={about.steps.title}>
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
      </AboutSection>

      <AboutSection id="testimonials" title={about.testimonials.title}>
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
      </AboutSection>

      <div className="about__section about-grid about-grid--two about-panels">
        <AboutPanel
          id="contact"
          Icon={Mail}
          title={about.contact.title}
          body={about.contact.body}
          className="card about-panel"
        >
          <p className="about-panel__actions">
            <PageLink to="contact" icon={PenLine} className="button button--ghost">
              {about.contact.link}
            </PageLink>
          </p>
          {email && (
            <p className="about-panel__email">
              {about.contact.emailLead} <a href={`mailto:${email}`}>{email}</a>
            </p>
          )}
        </AboutPanel>
        <AboutPanel
          id="future"
          Icon={Leaf}
          iconClassName="about-feature__icon about-feature__icon--leaf"
          title={about.future.title}
          body={about.future.body}
          className="card about-panel about-panel--future"
        />
      </div>

      <AboutSection id="cta" kind="cta" title={about.cta.title}>
        <p className="about-cta__body">{about.cta.body}</p>
        {/* The call to action leads to /en/create: it is part of the English-only page. */}
        <PageLink
          to="create"
          icon={BottleWine}
          className="button button--primary button--large"
          prefix="en"
        >
          {about.cta.button}
        </PageLink>
      </AboutSection>
    </div>
  );
}
