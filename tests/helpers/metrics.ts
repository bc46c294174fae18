/** One sample of Prometheus's text format: a series' name, its labels and its value. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

// A reader for the few lines the tests check, so that they look at what a scraper receives.
const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: \d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const match = LINE.exec(line);
    if (!match) throw new Error(`not a Prometheus sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key = "", value = ""] of (match[2] ?? "").matchAll(LABEL)) labels[key] = value;
    samples.push({ name: match[1] ?? "", labels, value: Number(match[3]) });
  }
  return samples;
}

/** The sum of a series' samples whose labels include `labels`; undefined when there are none. */
export function sampled(
  samples: Sample[],
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const matching = samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  return matching.length === 0 ? undefined : matching.reduce((sum, s) => sum + s.value, 0);
}

/** Scrapes a metrics endpoint as Prometheus does. */
export async function scrape(url: string, token?: string): Promise<Sample[]> {
  const response = await fetch(url, {
    headers: token ? { Authorization: `Bearer ${token}` } : {},
  });
  if (response.status !== 200) throw new Error(`scrape answered ${response.status}`);
  expect(response.headers.get("content-type")).toContain("text/plain");
  return parseMetrics(await response.text());
}

import { expect } from "bun:test";
