import type { ReactNode } from "react";
import { PageIntro } from "./PageIntro.tsx";
import "./LegalDocument.css";

export interface LegalSection {
  /** The anchor the table of contents links to. */
  id: string;
  title: string;
  content: ReactNode;
}

/** A section's words in a dictionary: its title, then paragraphs and list items in order. */
type SectionWords = { title: () => string } & Record<string, unknown>;

/**
 * A section built from its words, in the order the dictionary gives them: `itemN` entries make
 * one list where the first of them stands, every other entry a paragraph.
 */
function sectionOf(id: string, words: SectionWords): LegalSection {
  const parts: ReactNode[] = [];
  let items: string[] | undefined;
  for (const [key, say] of Object.entries(words)) {
    if (key === "title" || typeof say !== "function") continue;
    const text = String(say());
    if (!/^item\d+$/.test(key)) {
      parts.push(<p key={key}>{text}</p>);
    } else if (items) {
      items.push(text);
    } else {
      // The list stands where its first item does; the later items join it.
      items = [text];
      parts.push(<LegalList key="list" items={items} />);
    }
  }
  return { id, title: words.title(), content: parts };
}

/**
 * Every section of a dictionary's `sections`, in order, each anchored at its key in kebab case
 * ("governingLaw" → #governing-law); `special` draws the sections its keys name itself.
 */
export function legalSections(
  sections: Record<string, SectionWords>,
  special: Record<string, ReactNode> = {},
): LegalSection[] {
  return Object.entries(sections).map(([key, words]) => {
    const id = key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
    return key in special
      ? { id, title: words.title(), content: special[key] }
      : sectionOf(id, words);
  });
}

/**
 * A legal page (Privacy, Terms): title, a table of contents linking to each section, then the
 * sections, each under its own h2, in a narrow column.
 */
export function LegalDocument({
  title,
  lead,
  meta,
  tocLabel,
  intro,
  sections,
}: {
  title: string;
  lead: string;
  meta?: ReactNode;
  tocLabel: string;
  intro?: ReactNode;
  sections: LegalSection[];
}) {
  return (
    <div className="container--narrow legal">
      <PageIntro title={title}>{lead}</PageIntro>
      {meta && <p className="legal__meta">{meta}</p>}
      <nav className="legal__toc card" aria-labelledby="legal-toc-title">
        <p id="legal-toc-title" className="legal__toc-title">
          {tocLabel}
        </p>
        <ol className="legal__toc-list">
          {sections.map((section) => (
            <li key={section.id}>
              <a href={`#${section.id}`}>{section.title}</a>
            </li>
          ))}
        </ol>
      </nav>
      <article className="legal__document card">
        {intro && <p className="legal__intro">{intro}</p>}
        {sections.map((section, index) => (
          <section
            key={section.id}
            id={section.id}
            className="legal__section"
            aria-labelledby={`${section.id}-title`}
          >
            <h2 id={`${section.id}-title`} className="legal__heading">
              <span className="legal__number" aria-hidden="true">
                {index + 1}.
              </span>
              {section.title}
            </h2>
            {section.content}
          </section>
        ))}
      </article>
    </div>
  );
}

/** A bulleted list of dictionary sentences (the dictionaries keep list items as item1..itemN). */
export function LegalList({ items }: { items: string[] }) {
  return (
    <ul className="legal__list">
      {items.map((item) => (
        <li key={item}>{item}</li>
      ))}
    </ul>
  );
}
