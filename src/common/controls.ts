/**
 * Characters that steer a terminal or reorder text rather than show anything: C0 controls
 * (ESC starts escape sequences, BEL rings, CR overwrites a line), DEL, the C1 controls (U+009B
 * is a one-character CSI) and the bidirectional overrides, isolates and marks (they make text
 * read differently from what it is). Newline and tab are kept apart: text has use for them.
 */
const STEERING =
  "\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069";
const steering = new RegExp(`[${STEERING}]`, "g");
const steeringOrLines = new RegExp(`[${STEERING}\\n\\t]`, "g");

/**
 * The text without those characters, as input keeps it. `lines: true` keeps newlines and tabs
 * (a message); without it they go too (a name, an address).
 */
export function withoutControls(text: string, { lines = false } = {}): string {
  return text.replace(lines ? steering : steeringOrLines, "");
}

/**
 * Stored text as a terminal may show it: each steering character written out visibly
 * (`\x1b`, `\u202e`), so the operator sees that it was there and the terminal does nothing
 * with it. Newlines and tabs are kept for the layout of what the command prints.
 */
export function forTerminal(text: string): string {
  return text.replace(steering, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff
      ? `\\x${code.toString(16).padStart(2, "0")}`
      : `\\u${code.toString(16).padStart(4, "0")}`;
  });
}

/** One field of a line (a name, a subject): newlines and tabs written out too. */
export function fieldForTerminal(text: string): string {
  return forTerminal(text).replace(/\n/g, "\\n").replace(/\t/g, "\\t");
}
