import {
  type CountryCode,
  findPhoneNumbersInText,
  isSupportedCountry,
} from "libphonenumber-js/max";
import { LinkifyIt } from "linkify-it";
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

const LINKS = linkFinder();

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

// ---------------------------------------------------------------------------------------------
// Phone numbers.

// Numbers that are not phone numbers, masked before digits are counted. Each is matched only
// standing alone (no more digits a separator away), so a phone written with dots or slashes
// ("06.12.34.56.78") is not read as a date followed by more.
const ALONE_BEFORE = "(?<!\\d[^\\p{L}\\p{N}\\n]{0,3})";
const ALONE_AFTER = "(?![^\\p{L}\\p{N}\\n]{0,3}\\d)";
const CURRENCY = "(?:[$€£¥₩₹]|元|円|圓|块|塊|원|euros?|eur|usd|dollars?|yen|won|ntd|twd|hkd|rmb)";
const NOT_PHONES: RegExp[] = [
  // Times: 9:30, 10:30:15.
  /(?<!\d)\d{1,2}:\d{2}(?::\d{2})?(?!\d)/gu,
  // Dates: 2026-11-23, 23.11.2026, 11/23/26.
  new RegExp(`${ALONE_BEFORE}\\d{4}([-./])\\d{1,2}\\1\\d{1,2}${ALONE_AFTER}`, "gu"),
  new RegExp(`${ALONE_BEFORE}\\d{1,2}([-./])\\d{1,2}\\1(?:\\d{4}|\\d{2})${ALONE_AFTER}`, "gu"),
  // Money: $1,299.99, 12,50 €, 1 000 €, NT$25,000, 300元.
  new RegExp(`${CURRENCY}\\s?\\d{1,3}(?:[,.]\\d{3})*(?:[.,]\\d+)?`, "giu"),
  new RegExp(
    `(?<![\\d.,])(?:\\d{1,3}(?:[ ,.]\\d{3})*(?:[.,]\\d+)?|\\d+(?:[.,]\\d+)?)\\s?${CURRENCY}(?!\\p{L})`,
    "giu",
  ),
  // Thousands: 23,400,000; 1.234.567,89.
  new RegExp(
    `${ALONE_BEFORE}(?:\\d{1,3}(?:,\\d{3})+(?:\\.\\d+)?|\\d{1,3}(?:\\.\\d{3})+,\\d+)${ALONE_AFTER}`,
    "gu",
  ),
  // Decimals: 3.14159265.
  new RegExp(`${ALONE_BEFORE}\\d+[.,]\\d+${ALONE_AFTER}`, "gu"),
];
// Versions and addresses: 10.0.19045.2965, 120.0.6099.109, 192.168.1.1, three to five groups
// with one of a single digit (phone groups are longer).
const DOTTED = new RegExp(`${ALONE_BEFORE}\\d+(?:\\.\\d+){2,4}${ALONE_AFTER}`, "gu");
const SINGLE_DIGIT_GROUP = /(?:^|\.)\d(?:\.|$)/;

// Digits and what may separate them in a written number: spaces, dashes, dots, brackets,
// slashes, emoji, the Japanese long mark ("090ー1234ー5678"). Not an underscore: it joins the
// parts of one word ("1764_0923_4567", an order or a test's unique text), not a number's groups;
// nor a colon, which sets apart times and addresses ("2001:4860:4860::8888"), never a phone's.
const NUMBER_RUN = /\d+(?:(?:[^\p{L}\p{N}\n_:]|[ー〜]){1,4}\d+)*/gu;
// Separators that set apart a list of numbers rather than the groups of one.
const LIST_SEPARATOR = /[,;|、]|\s{2,}/;
const MASK = "x";

function hasPhoneNumber(normal: string, region: CountryCode | undefined): boolean {
  if (!/\d/.test(normal)) return false;
  let masked = normal;
  for (const pattern of NOT_PHONES) masked = masked.replace(pattern, MASK);
  masked = masked.replace(DOTTED, (dotted) => (SINGLE_DIGIT_GROUP.test(dotted) ? MASK : dotted));
  for (const [run] of masked.matchAll(NUMBER_RUN)) {
    for (const number of run.split(LIST_SEPARATOR)) {
      if (isPhoneNumber(number, region)) return true;
    }
  }
  return false;
}

function isPhoneNumber(number: string, region: CountryCode | undefined): boolean {
  const groups = number.match(/\d+/g) ?? [];
  const digits = groups.join("");
  if (digits.length > 15) {
    // Two numbers written one after the other, or a long count: each stretch of groups.
    for (let start = 0; start < groups.length; start++) {
      let stretch = "";
      for (let end = start; end < groups.length; end++) {
        stretch += groups[end];
        if (stretch.length > 15) break;
        if (stretch.length >= 9 && !isCount(groups.slice(start, end + 1), stretch)) return true;
      }
    }
    return false;
  }
  if (digits.length >= 9) return !isCount(groups, digits);
  if (region && digits.length >= 7 && !COMPACT_DATE.test(digits)) {
    return findPhoneNumbersInText(number.replace(/[^\d+]+/g, " "), region).length > 0;
  }
  return false;
}

const COMPACT_DATE = /^(?:19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])$/;

/** "1 2 3 4 5 6 7 8 9 10", "10 20 30 40 50", "123456789": counting, not a number to call. */
function isCount(groups: string[], digits: string): boolean {
  if (groups.length >= 4) {
    const values = groups.map(Number);
    const step = (values[1] ?? 0) - (values[0] ?? 0);
    if (
      step !== 0 &&
      values.every((value, i) => i === 0 || value - (values[i - 1] ?? 0) === step)
    ) {
      return true;
    }
  }
  let up = true;
  let down = true;
  for (let i = 1; i < digits.length; i++) {
    const step = digits.charCodeAt(i) - digits.charCodeAt(i - 1);
    if (step !== 1) up = false;
    if (step !== -1) down = false;
  }
  return up || down;
}

function phoneRegion(region: string | undefined): CountryCode | undefined {
  const code = region?.toUpperCase();
  return code && isSupportedCountry(code) ? code : undefined;
}

// ---------------------------------------------------------------------------------------------
// Messenger accounts.

// Names written in Latin letters, matched as words ("line" is not in "online"; "LINEのID" and
// "我的line" have it). Two-letter names may be spaced ("I G").
const LATIN_MESSENGERS = [
  "wechat",
  "weixin",
  "whats\\s?app",
  "kakao\\s?talk",
  "kakao",
  "instagram",
  "insta",
  "i\\s?g",
  "skype",
  "viber",
  "snapchat",
  "snap",
  "telegram",
  "tele",
  "t\\s?g",
  "line",
  "signal",
  "discord",
  "dc",
  "facebook",
  "f\\s?b",
  "messenger",
  "twitter",
  "v\\s?x",
  "w\\s?x",
  "q\\s?q",
  "kik",
  "threads",
  "tiktok",
  "zalo",
  "threema",
  "wickr",
  "wa",
  "sc",
  "id",
];
// Names in Chinese, Japanese and Korean, written without spaces around them.
const CJK_MESSENGERS = [
  "q群",
  "qq群",
  "群號",
  "群号",
  "微信號",
  "微信号",
  "微信",
  "徽信",
  "威信",
  "薇信",
  "維信",
  "维信",
  "v信",
  "威芯",
  "加v",
  "賴",
  "赖",
  "紙飛機",
  "纸飞机",
  "飛機",
  "飞机",
  "電報",
  "电报",
  "扣扣",
  "企鵝",
  "企鹅",
  "臉書",
  "脸书",
  "ライン",
  "カカオトーク",
  "カカオ",
  "インスタグラム",
  "インスタ",
  "テレグラム",
  "ディスコード",
  "ワッツアップ",
  "スナップチャット",
  "スナチャ",
  "카카오톡",
  "카톡",
  "카카오",
  "라인",
  "텔레그램",
  "텔레",
  "인스타그램",
  "인스타",
  "디스코드",
  "디코",
  "왓츠앱",
  "스냅챗",
  "위챗",
  // 微 and 薇 alone stand for WeChat ("薇: mei0912"); they need an account a person picks.
  "微",
  "薇",
];
// "Add me", "search for": an account follows even without a messenger's name.
const INVITATIONS = [
  "加我",
  "加一下",
  "\\+我",
  "搜尋",
  "搜索",
  "搜寻",
  "私我",
  "密我",
  // "加薇", "加威", "➕V", "+vx": add me on WeChat.
  "加[薇微威衛卫]",
  "[+➕]\\s?(?:vx|wx|v|微|薇|賴|line)(?![a-z])",
  // An account by itself: "帳號 mei0912", "ID→mei.lin".
  "帳號",
  "账号",
  "アカウント",
  "아이디",
];
// Messengers and groups whose accounts are numbers.
const NUMBERED = /^(?:qq|q群|qq群|扣扣|企鵝|企鹅|wechat|weixin|微信|wx|vx|群號|群号)/i;

// Names of four letters or more also as written with digits and signs for letters ("l1ne",
// "|ine", "W3chat", "s1gnal"); shorter ones would read ordinary words ("1g of sugar").
const LEET: Record<string, string> = {
  a: "[a4@]",
  e: "[e3]",
  i: "[i1l|!]",
  l: "[l1i|]",
  o: "[o0]",
  s: "[s5$]",
};
const LATIN_NAMES = LATIN_MESSENGERS.map((name) =>
  name.replace(/\\s\?/g, "").length < 4
    ? name
    : name.replace(/\\s\?|[a-z]/g, (letter) => LEET[letter] ?? letter),
);

const MESSENGER = new RegExp(
  `(?<![a-z0-9_])(?:${LATIN_NAMES.join("|")})(?=id|[^a-z]|$)` +
    `|(?:${CJK_MESSENGERS.join("|")})|(?<invite>${INVITATIONS.join("|")})`,
  "gi",
);
const LABELS = "id|username|user|usuario|pseudo|benutzername|handle|account";
const CJK_LABELS = "帳號|帳户|賬號|账号|號碼|号码|號|号|アカウント|아이디|계정|名字";
const CONNECTORS = "is|es|est|c'est|ist|me|on";
const CJK_CONNECTORS = "是|為|为|は|の|が|는|은|이|가";
// What may stand between a name and its account: spaces, punctuation, emoji, a label ("ID"),
// a connector ("is", "是", "는"). A label, a colon, an arrow or "=" points at the account.
const GAP = new RegExp(
  `^(?:[\\s\\p{P}\\p{S}]|(?<![a-z])(?:${LABELS}|${CONNECTORS})(?![a-z])|${CJK_LABELS}|${CJK_CONNECTORS})*`,
  "iu",
);
const LABEL = new RegExp(`(?<![a-z])(?:${LABELS})(?![a-z])|${CJK_LABELS}`, "i");
const CJK_LABEL = new RegExp(CJK_LABELS);
const POINTER = /[:=>@→➡👉⇒]/u;
const ACCOUNT = /^@?([a-z0-9][a-z0-9_.#-]*[a-z0-9])/i;
// An account a person picks: letters with digits, "_", "." or "#" ("mei_0912", "mei.lin").
const PICKED = /^(?=.*\p{L})(?=.*[\d_.#])/u;
const VERSION = /^v?\d+(?:\.\d+)+$/i;
const MESSENGER_NAME = new RegExp(`^(?:${LATIN_MESSENGERS.join("|")})$`, "i");
// "@mei_lin" on its own: an account on any network. "Meet me @ the beach" has a space.
// (Mentions of a whole chat room, "@everyone", name no one.)
const AT_ACCOUNT =
  /(?<![a-z0-9._%+-])@(?!(?:everyone|here|all|channel)(?![a-z0-9_.]))[a-z_][a-z0-9_.]{2,}/i;

function hasHandle(normal: string): boolean {
  if (normal.includes("@") && AT_ACCOUNT.test(normal)) return true;
  for (const match of normal.matchAll(MESSENGER)) {
    const after = normal.slice(match.index + match[0].length, match.index + match[0].length + 48);
    const gap = GAP.exec(after)?.[0] ?? "";
    const account = ACCOUNT.exec(after.slice(gap.length))?.[1];
    // Four characters at least, or three after a label or "@" ("賴ID：mei").
    const least = gap.includes("@") || LABEL.test(gap) ? 3 : 4;
    if (!account || account.length < least || VERSION.test(account)) continue;
    if (MESSENGER_NAME.test(account)) continue;
    const rest = after.slice(gap.length + account.length);
    if (isAccount(match[0], account, gap, rest, match.groups?.invite !== undefined)) return true;
  }
  return false;
}

function isAccount(
  name: string,
  account: string,
  gap: string,
  rest: string,
  invitation: boolean,
): boolean {
  if (/^\d+$/.test(account)) return account.length >= 5 && NUMBERED.test(name);
  if (name === "微" || name === "薇") return PICKED.test(account);
  if (PICKED.test(account) || gap.includes("@") || CJK_LABEL.test(gap)) return true;
  // A word after "加我" or after a colon or arrow is an account, unless the sentence goes on
  // in words ("Telegram: such an old thing"). An English label alone does not make one: "my
  // messenger account is closed", "my line id is gone".
  return (invitation || POINTER.test(gap)) && !/^\s+\p{L}/u.test(rest);
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
