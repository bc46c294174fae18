import { Link } from "@tanstack/react-router";
import { localizedPath } from "../../common/locales.ts";
import { LegalDocument, legalSections } from "../components/LegalDocument.tsx";
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
  // The policy shows the day it is read as its last update.
  const today = new Date();
  const lastUpdated = new Intl.DateTimeFormat(locale, { dateStyle: "long" }).format(today);
  const [updatedBefore, updatedAfter] = around((date) => LL.privacy.lastUpdated({ date }));
  const [contactBefore, contactAfter] = around((link) => s.contactUs.body({ link }));
  const [emailBefore, emailAfter] = around((email) => s.contactUs.email({ email }));

  const sections = legalSections(s, {
    contactUs: (
      <>
        <p>
          {contactBefore}
          <Link to={localizedPath(prefix, "contact")}>{s.contactUs.linkLabel()}</Link>
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
  });

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
