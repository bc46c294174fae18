/**
 * Splits a localized sentence around one placeholder, so an element (a link) can stand where
 * the placeholder is: word order differs between languages.
 */
export function around(sentence: (marker: string) => string): [string, string] {
  const [before = "", after = ""] = sentence("\u0000").split("\u0000");
  return [before, after];
}
