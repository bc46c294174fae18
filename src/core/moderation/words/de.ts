/**
 * German terms, matched as whole words, so compounds are listed as their own entries.
 * Chosen by hand; several also appear in @2toad/profanity's "de" list, which cannot be used
 * whole because it is machine-translated and holds everyday words (hunde, huhn, lustig, fehler,
 * knochen). Left out on purpose: "Schwanz" (also a tail), "geil" and "Mist" (everyday
 * colloquial), "Arsch" alone (mild).
 */
export const DE_TERMS: readonly string[] = [
  "scheiße",
  "scheisse",
  "scheiß",
  "scheiss",
  "scheißkerl",
  "arschloch",
  "arschlöcher",
  "arschgeige",
  "arschficker",
  "fotze",
  "fotzen",
  "wichser",
  "hurensohn",
  "hurensöhne",
  "hure",
  "huren",
  "schlampe",
  "schlampen",
  "schwuchtel",
  "schwuchteln",
  "ficken",
  "fick",
  "fickt",
  "gefickt",
  "missgeburt",
  "spast",
  "spasti",
  "kanake",
  "kanaken",
  "neger",
  "drecksau",
  "schwanzlutscher",
  "halt die fresse",
  "verpiss dich",
];
