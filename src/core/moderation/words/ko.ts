/**
 * Korean terms, matched as substrings (particles attach to words: 씨발놈아). Spaces are kept
 * when matching, because 개 새끼 with a space is an ordinary "dog's puppy" while 개새끼 is the
 * insult; single syllables spelled out with spaces (개 새 끼) are joined before matching.
 * Left out on purpose: 보지 and 자지 (also "not see", "not sleep"), 씹 alone (씹다, to chew),
 * 걸레 (also a rag).
 *
 * @2toad/profanity ships a "ko" list, but it is machine-translated from English and holds
 * everyday words (한국어, 엄마, 사이트맵, 카테고리), so it is not used.
 */
export const KO_TERMS: readonly string[] = [
  "씨발",
  "씨빨",
  "씨팔",
  "씨바",
  "ㅅㅂ",
  "개새끼",
  "개새기",
  "개색끼",
  "개색기",
  "개새꺄",
  "병신",
  "븅신",
  "좆",
  "지랄",
  "미친년",
  "미친놈",
  "미친새끼",
  "씹새끼",
  "씹년",
  "씹할",
  "니애미",
  "느금마",
  "니미럴",
  "애미뒤진",
  "엿먹어",
  "짱깨",
  "쪽바리",
  "깜둥이",
  "한남충",
  "김치녀",
  "틀딱",
];

/** Regular-expression sources for terms whose innocent forms differ only in what follows. */
export const KO_PATTERNS: readonly string[] = [
  // 시발 spells 씨발, but 시발점 and 시발역 are a starting point and a starting station.
  "시발(?![점역택])",
];
