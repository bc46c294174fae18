import type { PageSlug } from "./locales.ts";

/** Dictionary keys of each page's title (under meta.titles). */
export const titleKeyOfSlug = {
  "": "home",
  create: "create",
  discover: "discover",
  about: "about",
  privacy: "privacy",
  terms: "terms",
  contact: "contact",
  faq: "faq",
  "public-bottles": "publicBottles",
  "random-chat": "randomChat",
  "my-bottles": "myBottles",
  moderation: "moderation",
} as const satisfies Record<PageSlug, string>;
export type TitleKey = (typeof titleKeyOfSlug)[PageSlug] | "auth" | "notFound" | "forbidden";

/** The About page is English only, under /en and /zh alike, and so is its metadata. */
export const aboutMeta = {
  title: "About Tidings · Anonymous messages in bottles",
  description:
    "Tidings is an anonymous message-in-a-bottle community: write a message, let it drift, discover one from a stranger, or chat one to one with someone across the world.",
  keywords:
    "message in a bottle, anonymous messages, random chat, pen pal, ocean, strangers, kindness",
  image: "/og-image.svg",
} as const;
