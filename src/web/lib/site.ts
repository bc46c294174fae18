import { SITE_CONFIG_ELEMENT_ID, type SiteConfig } from "../../common/site.ts";

let cached: SiteConfig | undefined;

/** The operator's settings, embedded in the page by the server. */
export function siteConfig(): SiteConfig {
  if (cached) return cached;
  const text = document.getElementById(SITE_CONFIG_ELEMENT_ID)?.textContent;
  cached = text
    ? (JSON.parse(text) as SiteConfig)
    : { version: "dev", siteUrl: null, contactEmail: null };
  return cached;
}
