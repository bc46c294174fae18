import en from "../../i18n/en/index.ts";
import zhTW from "../../i18n/zh-TW/index.ts";
import {
  type Locale,
  localizedPath,
  type PageSlug,
  type Prefix,
  type Resolution,
} from "../common/locales.ts";
import { aboutMeta, type TitleKey, titleKeyOfSlug } from "../common/page-meta.ts";
import { SITE_CONFIG_ELEMENT_ID, type SiteConfig } from "../common/site.ts";
import { escapeHtml } from "./http.ts";

const dictionaries = { en, "zh-TW": zhTW } as const;

export interface PageContext {
  resolution: Resolution;
  locale: Locale;
  /** The operator's PUBLIC_ORIGIN: absolute URLs are never built from a request's Host. */
  origin: string | undefined;
  site: SiteConfig;
  analytics?: { scriptUrl: string; siteId: string | undefined } | undefined;
  /**
   * The scripts its first load needs: the app's, then its own and its language's dictionary,
   * asked for together once the page is painted, by the start script.
   */
  scripts: { start: string; app: readonly string[] };
  /** The page exists but is not for this visitor (answered 403): titled so. */
  forbidden?: boolean;
}

function titleKey(resolution: Resolution, forbidden: boolean): TitleKey {
  if (forbidden) return "forbidden";
  if (resolution.kind === "page") return titleKeyOfSlug[resolution.slug];
  if (resolution.kind === "auth") return "auth";
  return "notFound";
}

type Dictionary = (typeof dictionaries)[Locale];

/** The pages laid out at full width (the others in the narrow column), as the app draws them. */
const WIDE_PAGES: ReadonlySet<PageSlug> = new Set(["discover", "public-bottles", "random-chat"]);

/**
 * The heading and introduction of a page whose first lines never depend on who is looking
 * (the app's PageIntro draws the same words in the same place).
 */
function introOf(
  dict: Dictionary,
  slug: PageSlug,
  features: SiteConfig["features"],
): { title: string; lead: string } | undefined {
  // A part the operator has switched off shows its resting page's words instead: none here.
  const whileOn = (on: boolean | undefined, title: string, lead: string) =>
    on ? { title, lead } : undefined;
  switch (slug) {
    case "create":
      return whileOn(features?.bottles, dict.create.title, dict.create.subtitle);
    case "discover":
      return whileOn(features?.bottles, dict.discover.title, dict.discover.subtitle);
    case "public-bottles":
      return whileOn(
        features?.publicBottles,
        dict.publicBottles.title,
        dict.publicBottles.subtitle,
      );
    case "random-chat":
      return whileOn(features?.chat, dict.randomChat.title, dict.randomChat.description);
    case "faq":
      return { title: dict.faq.title, lead: dict.faq.lead };
    case "contact":
      return { title: dict.contact.title, lead: dict.contact.lead };
    case "my-bottles":
      return { title: dict.myBottles.title, lead: dict.myBottles.lead };
    default:
      return undefined;
  }
}

/**
 * The home page's title, introduction and two main links, where the app draws them, with its
 * sea's water below (its bottles come with the app). The buttons' icons come with the app too:
 * a space of their size keeps the words where they will stay.
 */
function homeHero(dict: Dictionary, prefix: Prefix): string {
  const link = (slug: PageSlug, kind: string, words: string) =>
    `<a href="${localizedPath(prefix, slug)}" class="button button--${kind} button--large">` +
    `<span class="button__icon-space"></span>${escapeHtml(words)}</a>`;
  return (
    `<main class="page"><div class="home"><section class="home-hero">` +
    `<div class="container home-hero__intro">` +
    `<h1 class="home-hero__title">${escapeHtml(dict.home.title)}</h1>` +
    `<p class="home-hero__lead">${escapeHtml(dict.home.lead)}</p>` +
    `<div class="button-row">${link("create", "primary", dict.home.actions.write)}` +
    `${link("discover", "secondary", dict.home.actions.find)}</div></div>` +
    `<div class="home-sea"></div></section></div></main>`
  );
}

/**
 * What the page shows before its script has run, in the page's language: the page's own heading
 * and introduction where they are known, with a loading line under them (on a slow connection
 * the visitor reads what the page is for while it loads); the home page's hero under its
 * loading overlay, which leaves after its time by itself; otherwise a loading screen (instead of
 * an empty sea); and where script is off, why nothing more will come. The app's first render
 * replaces all of it.
 */
function firstPaint(page: PageContext): string {
  const dict = dictionaries[page.locale];
  const slug = page.resolution.kind === "page" ? page.resolution.slug : undefined;
  const loading = (modifier: string, text = dict.common.loading) =>
    `<div class="page-loading${modifier}" role="status"><span class="page-loading__ring spinner"></span>` +
    `<p class="page-loading__text">${escapeHtml(text)}</p></div>`;
  const intro = slug && !page.forbidden ? introOf(dict, slug, page.site.features) : undefined;
  let content = loading("");
  if (slug === "" && page.resolution.kind === "page") {
    content =
      homeHero(dict, page.resolution.prefix) + loading(" page-loading--home", dict.home.loading);
  } else if (slug && intro) {
    const column = WIDE_PAGES.has(slug) ? "container" : "container--narrow";
    content =
      `<main class="page"><div class="${column} ${slug}"><header class="page-intro">` +
      `<h1 class="page-intro__title">${escapeHtml(intro.title)}</h1>` +
      `<p class="page-intro__lead">${escapeHtml(intro.lead)}</p></header>` +
      `${loading(" page-loading--below")}</div></main>`;
  }
  return (
    content +
    `<noscript><style>.page-loading{display:none}</style>` +
    `<p class="page-noscript">${escapeHtml(dict.common.noScript)}</p></noscript>`
  );
}

/**
 * The app's HTML for one page: its language, title and description (so links shared to chat
 * apps and search engines read right without running script), plus the operator's settings.
 */
export function renderPage(template: string, page: PageContext): string {
  const dict = dictionaries[page.locale];
  const isAbout = page.resolution.kind === "page" && page.resolution.slug === "about";
  const title = isAbout
    ? aboutMeta.title
    : dict.meta.titles[titleKey(page.resolution, page.forbidden === true)];
  const description = isAbout ? aboutMeta.description : dict.meta.description;
  const head: string[] = [
    `<meta name="description" content="${escapeHtml(description)}">`,
    `<meta property="og:site_name" content="Tidings">`,
  ];
  if (isAbout) {
    head.push(
      `<meta name="keywords" content="${escapeHtml(aboutMeta.keywords)}">`,
      `<meta property="og:type" content="website">`,
      `<meta property="og:title" content="${escapeHtml(aboutMeta.title)}">`,
      `<meta property="og:description" content="${escapeHtml(aboutMeta.description)}">`,
      `<meta name="twitter:card" content="summary_large_image">`,
      `<meta name="twitter:title" content="${escapeHtml(aboutMeta.title)}">`,
      `<meta name="twitter:description" content="${escapeHtml(aboutMeta.description)}">`,
    );
    if (page.origin) {
      const url = `${page.origin}/en/about`;
      head.push(
        `<link rel="canonical" href="${escapeHtml(url)}">`,
        `<meta property="og:url" content="${escapeHtml(url)}">`,
        `<meta property="og:image" content="${escapeHtml(page.origin + aboutMeta.image)}">`,
      );
    }
  }
  if (page.analytics) {
    // Plausible reads data-domain, Umami data-website-id; each ignores the other's.
    const domain = page.origin ? ` data-domain="${escapeHtml(new URL(page.origin).host)}"` : "";
    const id = page.analytics.siteId
      ? ` data-website-id="${escapeHtml(page.analytics.siteId)}"`
      : "";
    head.push(
      `<script defer src="${escapeHtml(page.analytics.scriptUrl)}"${domain}${id}></script>`,
    );
  }
  // JSON in non-executing script elements; "<" is escaped so no text can close the element.
  const json = (value: unknown) => JSON.stringify(value).replace(/</g, "\\u003c");
  head.push(
    `<script type="application/json" id="${SITE_CONFIG_ELEMENT_ID}">${json(page.site)}</script>`,
    `<script type="application/json" id="app-scripts">${json(page.scripts.app)}</script>`,
    `<script defer src="${escapeHtml(page.scripts.start)}"></script>`,
  );
  return template
    .replace(/<html lang="[^"]*"/, `<html lang="${page.locale}"`)
    .replace(/<title>[^<]*<\/title>/, `<title>${escapeHtml(title)}</title>`)
    .replace("</head>", `${head.join("")}</head>`)
    .replace('<div id="root"></div>', `<div id="root">${firstPaint(page)}</div>`);
}
