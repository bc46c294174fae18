/** Every leaf key of a dictionary, dotted ("nav.home"), with its value. */
export function leaves(value: unknown, prefix = ""): Map<string, unknown> {
  const out = new Map<string, unknown>();
  if (value && typeof value === "object") {
    for (const [key, child] of Object.entries(value)) {
      for (const [k, v] of leaves(child, prefix ? `${prefix}.${key}` : key)) out.set(k, v);
    }
  } else {
    out.set(prefix, value);
  }
  return out;
}

/** What differs between two dictionaries: keys only one has, and empty values in either. */
export function compareDictionaries(
  base: Record<string, unknown>,
  other: Record<string, unknown>,
  names: [string, string] = ["en", "zh-TW"],
): string[] {
  const a = leaves(base);
  const b = leaves(other);
  const problems: string[] = [];
  for (const key of a.keys()) if (!b.has(key)) problems.push(`${names[1]} lacks ${key}`);
  for (const key of b.keys()) if (!a.has(key)) problems.push(`${names[0]} lacks ${key}`);
  for (const [name, dict] of [
    [names[0], a],
    [names[1], b],
  ] as const) {
    for (const [key, value] of dict) {
      if (typeof value !== "string" || value.trim() === "")
        problems.push(`${name}: ${key} is empty`);
    }
  }
  return problems;
}
