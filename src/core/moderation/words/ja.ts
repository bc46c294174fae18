/**
 * Japanese terms, matched as substrings of the text with spaces and punctuation removed.
 * Left out on purpose because they sit inside ordinary words: チンコ (パチンコ), マンコ
 * (ロマンコメディ), 売女 (販売女性), 基地外 (a military base's outside), チョン (チョンマゲ).
 *
 * @2toad/profanity ships a "ja" list, but it is machine-translated from English and holds
 * everyday words (ログイン, パスワード, メニュー, パーティー), so it is not used.
 */
export const JA_TERMS: readonly string[] = [
  "くたばれ",
  "ぶっ殺す",
  "ぶっころす",
  "ぶち殺す",
  "殺すぞ",
  "ころすぞ",
  "死ねばいいのに",
  "クソ野郎",
  "くそ野郎",
  "糞野郎",
  "クソやろう",
  "くそやろう",
  "キチガイ",
  "きちがい",
  "気違い",
  "ヤリマン",
  "やりまん",
  "おまんこ",
  "オマンコ",
  "ちんぽ",
  "チンポ",
  "中出し",
  "ビッチ",
  "ニガー",
];

/** Regular-expression sources for terms whose innocent forms differ only in what follows. */
export const JA_PATTERNS: readonly string[] = [
  // 死ね ("die!"), but not 死ねない, 死ねば, 死ねる, 死ねます, 死ねた, 死ねて, 死ねず.
  "死ね(?![ないばるまたてず])",
  // ファック, but not ファックス (a fax).
  "ファック(?!ス)",
];
