import { LINK, normalize } from "./local.ts";

/** What in a text lets strangers reach each other outside the site. */
export interface ContactDetails {
  link: boolean;
  email: boolean;
  phone: boolean;
  /** A messenger account: LINE, WeChat, KakaoTalk, Telegram and the like. */
  handle: boolean;
}

// "name@example.org", also written "name (at) example (dot) org" or "name at example dot org".
const EMAIL =
  /[\p{L}\p{N}._%+-]+\s*(?:@|\(at\)|\[at\]|\sat\s)\s*[\p{L}\p{N}-]+(?:\s*(?:\.|\(dot\)|\[dot\]|\sdot\s)\s*[\p{L}\p{N}-]+)*\s*(?:\.|\(dot\)|\[dot\]|\sdot\s)\s*\p{L}{2,}/iu;

// A run of digits, spaces, dots, dashes and brackets, optionally after "+": a phone number when
// it holds 9 to 15 digits (dates hold 8, "3.5 hours" two, money has no spaces between groups).
const DIGIT_RUN = /\+?\(?\d[\d\s().-]{6,}\d/gu;
const DIGITS = /\d/g;
// Year-month-day and day/month/year dates, and decimals ("3.14159265"), are not phone numbers.
const NOT_A_PHONE = /^\d{4}[-.]\d{1,2}[-.]\d{1,2}$|^\d{1,2}[-.]\d{1,2}[-.]\d{4}$|^\d+\.\d+$/;

// A messenger's name, then its account: "LINE ID: mei_0912", "微信：mei0912", "카톡 아이디 mei12",
// "WeChat mei0912", "my whatsapp is mei12". Names that are also ordinary words ("line",
// "signal", "discord", "insta") need a label or a colon before the account; a bare "@account"
// counts too.
const MESSENGER = "wechat|weixin|whatsapp|kakaotalk|kakao|instagram|skype|viber";
// Written without spaces around them in Chinese, Japanese and Korean.
const MESSENGER_CJK = "微信號|微信号|微信|加v|ライン|カカオ|카톡|카카오톡|라인|텔레그램|인스타";
const AMBIGUOUS =
  "line|signal|snapchat|snap|telegram|discord|insta|tg|ig|fb|facebook|twitter|vx|wx|qq";
const LABEL = "(?:id|帳號|账号|號|号|アカウント|아이디)";
// "my whatsapp is …", "mi whatsapp es …", "mon insta est …", "mein Insta ist …".
const SAID = "(?:\\s+(?:is|es|est|ist))?";
const ACCOUNT = "[a-z0-9][a-z0-9_.-]{3,}";
const NOT_IN_WORD_BEFORE = "(?<![\\p{L}\\p{N}])";
const HANDLE = new RegExp(
  `(?:${NOT_IN_WORD_BEFORE}(?:${MESSENGER})(?![\\p{L}\\p{N}])|${MESSENGER_CJK})${SAID}\\s*${LABEL}?\\s*[:：@]?\\s*${ACCOUNT}` +
    `|${NOT_IN_WORD_BEFORE}(?:${AMBIGUOUS})\\s*(?:${LABEL}\\s*[:：@]?|[:：@])\\s*${ACCOUNT}` +
    "|(?<![\\p{L}\\p{N}._%+-])@[a-z_][a-z0-9_.]{2,}",
  "iu",
);

/** Links, e-mail addresses, phone numbers and messenger accounts in a text, in any of the site's languages. */
export function contactDetails(text: string): ContactDetails {
  const normal = normalize(text);
  LINK.lastIndex = 0;
  const phone = [...normal.matchAll(DIGIT_RUN)].some(([run]) => {
    const digits = run.match(DIGITS)?.length ?? 0;
    return digits >= 9 && digits <= 15 && !NOT_A_PHONE.test(run.trim());
  });
  const email = EMAIL.test(normal);
  return {
    link: !email && LINK.test(normal),
    email,
    phone,
    handle: HANDLE.test(normal),
  };
}

export function hasContactDetails(text: string): boolean {
  const found = contactDetails(text);
  return found.link || found.email || found.phone || found.handle;
}

/**
 * A text as repeats are told apart: full-width folded, case folded, and without spaces,
 * punctuation and symbols, so "Buy NOW!!!" and "buy now" are the same text.
 */
export function repeatKey(text: string): string {
  return normalize(text).replace(/[\s\p{P}\p{S}]+/gu, "");
}
