// The About page's building blocks: titled sections, cards with an icon, side-by-side panels.

import type { ReactNode } from "react";
import type { LucideIcon } from "../icons.ts";

/** The look of each kind of section: its own class and its heading's. */
const sectionKinds = {
  plain: ["about__section", "about__heading"],
  community: ["about__section about-community", "about__heading"],
  story: ["about__section about-story card", "about__heading about__heading--start"],
  cta: ["about-cta", "about-cta__title"],
} as const;

/** One titled part of the page, with its lead line when it has one. */
export function AboutSection({
  id,
  title,
  lead,
  kind = "plain",
  children,
}: {
  id: string;
  title: string;
  lead?: string;
  kind?: keyof typeof sectionKinds;
  children: ReactNode;
}) {
  const [className, headingClassName] = sectionKinds[kind];
  return (
    <section className={className} aria-labelledby={`about-${id}`}>
      <h2 id={`about-${id}`} className={headingClassName}>
        {title}
      </h2>
      {lead && <p className="about__text about__text--center">{lead}</p>}
      {children}
    </section>
  );
}

/** Four cards, each with an icon, a title and a line (what we offer, our values). */
export function FeatureGrid<K extends string>({
  items,
  icons,
  cardClassName,
}: {
  items: ReadonlyArray<{ icon: K; title: string; body: string }>;
  icons: Record<K, LucideIcon>;
  cardClassName: string;
}) {
  return (
    <ul className="about-grid about-grid--four">
      {items.map((item) => {
        const Icon: LucideIcon = icons[item.icon];
        return (
          <li key={item.icon} className={cardClassName}>
            <span className="about-feature__icon" aria-hidden="true">
              <Icon />
            </span>
            <h3 className="about-feature__title">{item.title}</h3>
            <p className="about-feature__body">{item.body}</p>
          </li>
        );
      })}
    </ul>
  );
}

/** A card beside another: its icon, title and text, and what follows them. */
export function AboutPanel({
  id,
  Icon,
  iconClassName = "about-feature__icon",
  title,
  body,
  className,
  children,
}: {
  id: string;
  Icon: LucideIcon;
  iconClassName?: string;
  title: string;
  body: string;
  className: string;
  children?: ReactNode;
}) {
  return (
    <section className={className} aria-labelledby={`about-${id}`}>
      <span className={iconClassName} aria-hidden="true">
        <Icon />
      </span>
      <h2 id={`about-${id}`} className="about-panel__title">
        {title}
      </h2>
      <p className="about__text">{body}</p>
      {children}
    </section>
  );
}
