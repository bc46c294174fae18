import { LinkifyIt } from "linkify-it";
import { MAIL_PROVIDERS } from "./contact-text.ts";
import type { ContactDetails } from "./contacts.ts";

// Links and e-mail addresses.

/**
 * Top-level domains spam is sent from, added to linkify-it's own list (every two-letter
 * country domain, com, net, org, info, biz, shop and a few more). The full list of more than a
 * thousand reads sentences that lack a space after the full stop as links ("hello.world",
 * "fun.today"); scripts/bench/contacts.ts measures both lists on the ordinary corpus.
 */
export const ABUSED_TLDS = [
  "xyz",
  "top",
  "site",
  "online",
  "club",
  "vip",
  "store",
  "live",
  "link",
  "click",
  "win",
  "bid",
  "loan",
  "work",
  "fun",
  "icu",
  "buzz",
  "cyou",
  "cfd",
  "sbs",
  "rest",
  "monster",
  "lol",
  "quest",
  "best",
  "bond",
  "cam",
  "app",
  "dev",
  "page",
  "tech",
  "space",
  "website",
  "chat",
  "social",
  "mobi",
  "tel",
  "xin",
  "ren",
  "wang",
  "ink",
  "kim",
  "men",
  "date",
  "party",
  "review",
  "stream",
  "download",
  "racing",
  "trade",
  "science",
  "host",
  "press",
  "bet",
  "casino",
  "poker",
  "porn",
  "sex",
  "adult",
  "sexy",
  "dating",
  "email",
  "ltd",
  "group",
  "fit",
  "games",
  "tokyo",
  "cloud",
];

export function linkFinder(tlds: readonly string[] = ABUSED_TLDS, keepDefault = true): LinkifyIt {
  return new LinkifyIt({ fuzzyLink: true, fuzzyEmail: true, fuzzyIP: false }).tlds(
    [...tlds],
    keepDefault,
  );
}

export const LINKS = linkFinder();

// Top-level domains that are also everyday words at the start of a sentence: "I was tired.so I
// slept", "the end.it was fun", "lol.im dying" and "so tired.work was long" lack a space, not a
// link. Such a domain counts with a path, a www, more than two labels, a name of one letter
// ("t.me") or of more than letters, or nothing after it but the end of a sentence ("find me at
// meilin.me").
const EVERYDAY_TLDS = new Set([
  "live",
  "link",
  "win",
  "work",
  "fun",
  "rest",
  "best",
  "date",
  "party",
  "review",
  "men",
  "page",
  "chat",
  "group",
  "games",
  "it",
  "im",
  "me",
  "id",
  "so",
  "no",
  "my",
  "to",
  "in",
  "at",
  "be",
  "do",
  "as",
  "is",
  "us",
  "am",
  "an",
  "by",
  "la",
  "de",
  "es",
  "se",
  "si",
  "il",
  "ne",
]);

// Country domains that are also file extensions ("README.md", "setup.py", "install.sh"): such a
// name counts as a link only with a path, a www, a scheme or more than two labels.
const FILE_EXTENSIONS = new Set(["md", "py", "sh", "pl", "rs", "ps", "mk", "ai", "cs"]);

// Invitations to a messenger, with or without a link's other parts: "t.me/mei", "wa.me/8869…".
const MESSENGER_LINK =
  /(?<![a-z0-9.-])(?:t|telegram|wa|m|ig|kik|signal|line|lin|qm\.qq|u\.wechat|weixin\.qq|open\.kakao|discord|discordapp|invite\.viber|join\.skype|chat\.whatsapp|api\.whatsapp|snapchat|instagram|tiktok)\.(?:me|ee|gg|com|org|group|dog)\s{0,3}\/\s{0,3}[a-z0-9_~+@-]/i;

// An address linkify-it does not read: any letters as the top-level domain, or a provider
// without one ("mei0912@gmail").
const EMAIL =
  /(?<![\p{L}\p{N}._%+-])[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*\.\p{L}{2,}(?![\p{L}\p{N}])/u;
const PROVIDER_EMAIL = new RegExp(
  `(?<![a-z0-9._%+-])[a-z0-9._%+-]+@(?:${MAIL_PROVIDERS})(?![a-z0-9])`,
  "i",
);
// A word linkify-it could read as a link or an address: a dot before more, a colon, an "@".
const WORD = /\S+/g;
const LINK_LIKE = /\.[^\s.]|[:@]/;

/**
 * Links and e-mail addresses in a normalised text. linkify-it reads only the words that could
 * hold one (most words of a long message cannot), and `first` stops at the first found.
 */
export function linksAndAddresses(
  normal: string,
  links: LinkifyIt = LINKS,
  first = false,
): Pick<ContactDetails, "link" | "email"> {
  let link = normal.includes("/") && MESSENGER_LINK.test(normal);
  let email = normal.includes("@") && (EMAIL.test(normal) || PROVIDER_EMAIL.test(normal));
  if (first && (link || email)) return { link, email };
  for (const word of normal.matchAll(WORD)) {
    if (link && email) break;
    if (!LINK_LIKE.test(word[0]) || !links.test(word[0])) continue;
    for (const match of links.match(word[0]) ?? []) {
      if (match.schema === "mailto:") email = true;
      else if (match.schema !== "" || isLink(match.raw, normal, word.index + match.index)) {
        link = true;
      }
    }
    if (first && (link || email)) break;
  }
  return { link, email };
}

/** Whether a link found without a scheme is one, or a sentence missing a space. */
function isLink(raw: string, normal: string, index: number): boolean {
  if (/^www\./i.test(raw) || /[/?#:]/.test(raw)) return true;
  const labels = raw.split(".");
  const tld = labels.at(-1) ?? "";
  const before = labels.at(-2) ?? "";
  // "That was the end.It was fun": a capital after a lower-case word starts a sentence.
  if (/^\p{Lu}\p{Ll}/u.test(tld) && /\p{Ll}$/u.test(before)) return false;
  if (FILE_EXTENSIONS.has(tld.toLowerCase()) && labels.length === 2) return false;
  if (EVERYDAY_TLDS.has(tld.toLowerCase()) && labels.length === 2 && /^\p{L}{2,}$/u.test(before)) {
    // "dm me at mei.it" is written to be followed; "tired.so I slept" is followed by more.
    return !/^\s+\p{L}/u.test(normal.slice(index + raw.length));
  }
  return true;
}
