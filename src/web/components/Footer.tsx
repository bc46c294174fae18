import { Link } from "@tanstack/react-router";
import { localizedPath, type PageSlug } from "../../common/locales.ts";
import { Waves } from "../icons.ts";
import { useI18n } from "../lib/i18n.tsx";
import { siteConfig } from "../lib/site.ts";

/** The footer's pages; each one's words are under its own name in the dictionary. */
const footerLinks = ["about", "privacy", "terms", "contact", "faq"] as const satisfies PageSlug[];

export function Footer() {
  const { LL, prefix } = useI18n();
  const site = siteConfig();
  const websiteLabel = site.siteUrl?.replace(/^https?:\/\//, "").replace(/\/$/, "");
  return (
    <footer className="site-footer">
      <div className="site-footer__inner">
        <div className="site-footer__brand">
          <p className="brand">
            <Waves aria-hidden="true" className="brand__icon" />
            <span>Tidings</span>
          </p>
          <p className="site-footer__tagline">{LL.footer.tagline()}</p>
        </div>
        <nav aria-label={LL.footer.pages()}>
          <ul className="site-footer__links">
            {footerLinks.map((slug) => (
              <li key={slug}>
                <Link to={localizedPath(prefix, slug)}>{LL.footer[slug]()}</Link>
              </li>
            ))}
          </ul>
        </nav>
        <dl className="site-footer__contact">
          {site.siteUrl && (
            <div>
              <dt>{LL.footer.website()}</dt>
              <dd>
                <a href={site.siteUrl}>{websiteLabel}</a>
              </dd>
            </div>
          )}
          {site.contactEmail && (
            <div>
              <dt>{LL.footer.email()}</dt>
              <dd>
                <a href={`mailto:${site.contactEmail}`}>{site.contactEmail}</a>
              </dd>
            </div>
          )}
        </dl>
      </div>
      <p className="site-footer__rights">{LL.footer.rights({ year: new Date().getFullYear() })}</p>
    </footer>
  );
}
