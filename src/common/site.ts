/** Operator settings the web needs at start, embedded in the page as JSON by the server. */
export interface SiteConfig {
  version: string;
  /** The product website named in the footer (SITE_URL or PUBLIC_ORIGIN), when there is one. */
  siteUrl: string | null;
  /** The contact address, when the operator has set one. */
  contactEmail: string | null;
  /**
   * The operator's off switches as they stood when the page was made, so it draws the right
   * page (or the resting one) from the start. Absent in a page built without a server.
   */
  features?: { chat: boolean; bottles: boolean; publicBottles: boolean };
}

export const SITE_CONFIG_ELEMENT_ID = "site-config";
