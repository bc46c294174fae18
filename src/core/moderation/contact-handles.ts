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
export const CJK_MESSENGERS = [
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
export const INVITATIONS = [
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
export const LATIN_NAMES = LATIN_MESSENGERS.map((name) =>
  name.replace(/\\s\?/g, "").length < 4
    ? name
    : name.replace(/\\s\?|[a-z]/g, (letter) => LEET[letter] ?? letter),
);

// The CJK names first: "qq群" would otherwise be read as "qq" followed by "群", no account.
const MESSENGER = new RegExp(
  `(?:${CJK_MESSENGERS.join("|")})` +
    `|(?<![a-z0-9_])(?:${LATIN_NAMES.join("|")})(?=id|[^a-z]|$)|(?<invite>${INVITATIONS.join("|")})`,
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

export function hasHandle(normal: string): boolean {
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
