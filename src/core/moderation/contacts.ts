import { CJK_MESSENGERS, hasHandle, INVITATIONS, LATIN_NAMES } from "./contact-handles.ts";
import { LINKS, linksAndAddresses } from "./contact-links.ts";
import { hasPhoneNumber, phoneRegion } from "./contact-phones.ts";
import { contactText, DIGIT_WORD_RUN, MAIL_PROVIDERS, SPELLED_OUT } from "./contact-text.ts";

export {
  nearDuplicate,
  repeatKey,
  sameText,
  type TextFingerprint,
  textFingerprint,
} from "./near-duplicate.ts";

/** What in a text lets strangers reach each other outside the site. */
export interface ContactDetails {
  link: boolean;
  email: boolean;
  phone: boolean;
  /** A messenger account: LINE, WeChat, KakaoTalk, Telegram and the like. */
  handle: boolean;
}

const NONE: ContactDetails = { link: false, email: false, phone: false, handle: false };

/**
 * Links, e-mail addresses, phone numbers and messenger accounts in a text, in any of the site's
 * languages, written plainly or disguised as spammers write them (see contactText). `region`
 * is the sender's country as two letters ("HK", "SG"); with it, the shorter national numbers
 * of that country count too (Hong Kong and Singapore mobiles have 8 digits).
 */
export function contactDetails(text: string, region?: string): ContactDetails {
  return cannotHoldContactDetails(text) ? NONE : contactDetailsInFull(text, region);
}

/** contactDetails without the pre-check: for tests and the benchmark, which compare the two. */
export function contactDetailsInFull(text: string, region?: string): ContactDetails {
  const normal = contactText(text);
  const { link, email } = linksAndAddresses(normal);
  return {
    link,
    email,
    phone: hasPhoneNumber(normal, phoneRegion(region)),
    handle: hasHandle(normal),
  };
}

/** Whether a text holds any contact details (see contactDetails); stops at the first found. */
export function hasContactDetails(text: string, region?: string): boolean {
  if (cannotHoldContactDetails(text)) return false;
  const normal = contactText(text);
  if (hasHandle(normal) || hasPhoneNumber(normal, phoneRegion(region))) return true;
  const { link, email } = linksAndAddresses(normal, LINKS, true);
  return link || email;
}

// ---------------------------------------------------------------------------------------------
// The pre-check. Most chat messages are short and plain; they are let through without the
// normaliser when nothing in them could become contact details once normalised.

// ASCII, Chinese, kana, Hangul and the common CJK and full-width punctuation: characters
// contactText leaves as they are (or only turns into ASCII punctuation).
const PLAIN =
  /^[\t\n\r\x20-\x7E\u3001\u3002\u300C-\u300F\u3041-\u3096\u30A1-\u30FA\u30FC\u4E00-\u9FFF\uAC00-\uD7A3\uFF01\uFF08\uFF09\uFF0C\uFF1F]*$/;

/**
 * Whether a text is plain and holds none of what a contact detail needs: no digit or "@", no
 * dot before a letter, no "//", no messenger's name, no dot or "at" written out, no digit words
 * in a run, no letters spelled out. Each test is a superset of what the detectors look for in
 * the normalised text, and a few separate scans cost less than one alternation of them all.
 */
export function cannotHoldContactDetails(text: string): boolean {
  return (
    PLAIN.test(text) &&
    !SIGNS.test(text) &&
    !LATIN_WORDS.test(text) &&
    !CJK_WORDS.test(text) &&
    !DIGIT_WORD_RUN_TEST.test(text) &&
    !SPELLED_OUT_TEST.test(text)
  );
}

// ---------------------------------------------------------------------------------------------
// The pre-check's signals.

// A digit, an "@", a "//", a dot before a letter or digit, "[." or "(@", a comma before com.
const SIGNS = /[0-9@]|\/\s{0,3}\/|[.。]\s{0,3}[a-z0-9]|[[({<（]\s{0,3}[.@]|[,，](?:com|net|org)/i;
const LATIN_WORDS = new RegExp(
  `(?<![a-z0-9])(?:${[
    ...LATIN_NAMES,
    "dot|d0t|punto|point|punkt|www|https?|hxxps?|h\\*\\*ps?",
    MAIL_PROVIDERS,
  ].join("|")})(?:id)?(?![a-z])`,
  "i",
);
const CJK_WORDS = new RegExp(
  [...CJK_MESSENGERS, ...INVITATIONS, "點|点|艾特|小老鼠|アットマーク|골뱅이"].join("|"),
  "i",
);
const DIGIT_WORD_RUN_TEST = new RegExp(DIGIT_WORD_RUN.source, "i");
const SPELLED_OUT_TEST = new RegExp(SPELLED_OUT.source, "i");
