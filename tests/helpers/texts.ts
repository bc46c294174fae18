const FIRST = [
  "harbour",
  "lantern",
  "meadow",
  "pebble",
  "thunder",
  "violet",
  "cactus",
  "glacier",
  "orchard",
  "saffron",
  "whistle",
  "biscuit",
  "compass",
  "dolphin",
  "feather",
  "juniper",
  "kettle",
  "marble",
  "nutmeg",
  "quartz",
];
const SECOND = [
  "morning",
  "evening",
  "journey",
  "letters",
  "stories",
  "puzzles",
  "gardens",
  "rivers",
  "islands",
  "forests",
  "mountains",
  "candles",
  "pockets",
  "mirrors",
  "bridges",
  "windows",
  "shadows",
  "ribbons",
  "anchors",
  "echoes",
];

/**
 * A short text of its own for each number, different enough from every other that the rule
 * against near-duplicate texts (one changed character is the same text) never joins two.
 */
export function distinctText(n: number): string {
  const first = FIRST[n % FIRST.length] as string;
  const second = SECOND[Math.floor(n / FIRST.length) % SECOND.length] as string;
  return `${first} ${second} ${n}`;
}
