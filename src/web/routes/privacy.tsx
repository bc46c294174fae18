import { Link } from "@tanstack/react-router";
import { localizedPath } from "../../common/locales.ts";
import { LegalDocument, LegalList, type LegalSection } from "../components/LegalDocument.tsx";
import { useI18n } from "../lib/i18n.tsx";
import { around } from "../lib/placeholder.ts";
import { siteConfig } from "../lib/site.ts";

/** Today as YYYY-MM-DD in the visitor's time zone, for <time dateTime>. */
function isoDate(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

export function PrivacyPage() {
  const { LL, locale, prefix } = useI18n();
  const s = LL.privacy.sections;
  const contactEmail = siteConfig().contactEmail;
  // The spec shows the policy as last updated today (spec 2, Privacy).
  const today = new Date();
  const lastUpdated = new Intl.DateTimeFormat(locale, { dateStyle: "long" }).format(today);
  const [updatedBefore, updatedAfter] = around((date) => LL.privacy.lastUpdated({ date }));
  const [contactBefore, contactAfter] = around((link) => s.contact.body({ link }));
  const [emailBefore, emailAfter] = around((email) => s.contact.email({ email }));

  const sections: LegalSection[] = [
    {
      id: "information-we-collect",
      title: s.collected.title(),
      content: (
        <>
          <p>{s.collected.body()}</p>
          <LegalList
            items={[
              s.collected.item1(),
              s.collected.item2(),
              s.collected.item3(),
              s.collected.item4(),
              s.collected.item5(),
            ]}
          />
        </>
      ),
    },
    {
      id: "how-we-use-it",
      title: s.use.title(),
      content: (
        <>
          <p>{s.use.body()}</p>
          <LegalList items={[s.use.item1(), s.use.item2(), s.use.item3(), s.use.item4()]} />
          <p>{s.use.note()}</p>
        </>
      ),
    },
    { id: "security", title: s.security.title(), content: <p>{s.security.body()}</p> },
    {
      id: "cookies",
      title: s.cookies.title(),
      content: (
        <>
          <p>{s.cookies.body()}</p>
          <LegalList items={[s.cookies.item1(), s.cookies.item2(), s.cookies.item3()]} />
          <p>{s.cookies.note()}</p>
        </>
      ),
    },
    {
      id: "other-sites",
      title: s.thirdParty.title(),
      content: <p>{s.thirdParty.body()}</p>,
    },
    { id: "children", title: s.children.title(), content: <p>{s.children.body()}</p> },
    { id: "changes", title: s.changes.title(), content: <p>{s.changes.body()}</p> },
    {
      id: "contact-us",
      title: s.contact.title(),
      content: (
        <>
          <p>
            {contactBefore}
            <Link to={localizedPath(prefix, "contact")}>{s.contact.linkLabel()}</Link>
            {contactAfter}
          </p>
          {contactEmail && (
            <p>
              {emailBefore}
              <a href={`mailto:${contactEmail}`}>{contactEmail}</a>
              {emailAfter}
            </p>
          )}
        </>
      ),
    },
  ];

  return (
    <LegalDocument
      title={LL.privacy.title()}
      lead={LL.privacy.lead()}
      meta={
        <>
          {updatedBefore}
          <time dateTime={isoDate(today)}>{lastUpdated}</time>
          {updatedAfter}
        </>
      }
      tocLabel={LL.privacy.toc()}
      intro={LL.privacy.intro()}
      sections={sections}
    />
  );
}
