/**
 * BENCHMARKS.md: the table of every section's rows, the plan worked out from the cluster
 * sections' figures (plan.ts), the standing notes (NOTES.md) and each section's own notes, every
 * line wrapped to be read in a terminal. The recorded figures go to BENCHMARKS.json beside it, so
 * a run of some benchmarks keeps the others' rows.
 */

import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  type ChatFigures,
  type CostFigures,
  type MatchFigures,
  renderPlan,
  type ScaleFigures,
} from "./plan.ts";
import { type Section, settleMet, type TableRow } from "./section.ts";

export type Recorded = Omit<Section, "rows"> & { rows: TableRow[]; date: string };
export type Sections = Record<string, Recorded>;

/** Where BENCHMARKS.md keeps its recorded figures: the JSON file beside it. */
const dataFile = (mdFile: string) => mdFile.replace(/\.md$/, ".json");

/** The sections recorded in the JSON file beside BENCHMARKS.md. */
export function readPrevious(mdFile: string): Sections {
  if (!existsSync(dataFile(mdFile))) return {};
  return JSON.parse(readFileSync(dataFile(mdFile), "utf8")) as Sections;
}

const WIDTH = 100;
/**
 * A line over WIDTH + 20 characters (NOTES.md is wrapped near WIDTH) cut at spaces into lines of
 * WIDTH at most (a longer word stays whole): a list item's or a code line's continuation
 * indented, so Markdown reads it as the same item. Table rows are left whole.
 */
function wrap(line: string, inCode = false): string[] {
  if (line.length <= WIDTH + 20 || line.startsWith("|")) return [line];
  const indent = inCode ? "    " : line.startsWith("- ") ? "  " : "";
  const lines: string[] = [];
  let current = "";
  for (const word of line.split(" ")) {
    if (current && current.length + 1 + word.length > WIDTH) {
      lines.push(current);
      current = indent + word;
    } else current = current ? `${current} ${word}` : word;
  }
  lines.push(current);
  return lines;
}

function wrapAll(lines: string[]): string[] {
  let inCode = false;
  return lines.flatMap((text) =>
    text.split("\n").flatMap((line) => {
      if (line.startsWith("```")) inCode = !inCode;
      return wrap(line, inCode);
    }),
  );
}

const escapeCell = (text: string) => text.replace(/\|/g, "\\|");

/** Analysis kept with the table; the figures it cites are from the run recorded. */
function readStandingNotes(): string[] {
  const file = join(import.meta.dir, "NOTES.md");
  return existsSync(file) ? readFileSync(file, "utf8").trim().split("\n") : [];
}

/**
 * The whole of BENCHMARKS.md from the sections (in `order`, the runner's) and the lines about
 * the machine and the run. Every row passes settleMet here, recorded earlier or measured now:
 * a goal is never shown met on a figure that was not measured.
 */
export function render(sections: Sections, meta: string[], order: readonly string[]): string {
  const lines = [
    "# Benchmarks",
    "",
    "Written by `bun run bench` (`scripts/bench/`), its figures recorded in BENCHMARKS.json. Every",
    "server under test and every baseline runs as its own process and so does every load generator,",
    "all on 127.0.0.1 of the same machine; each figure is compared with a raw baseline measured in the",
    "same run (interleaved for the HTTP figures), so that the noise of the machine falls on both, and",
    "discover and the chat also with what a builder would pick instead (Express with better-sqlite3",
    "under Node; a Socket.IO relay under Node and under Bun; in the same run). Ratio is ours ÷",
    "baseline: for rates higher is better, for times and sizes lower is better.",
    "",
    ...meta,
    "",
    "| Benchmark | Ours | Baseline | Ratio | Goal | Met? |",
    "| --- | --- | --- | --- | --- | --- |",
  ];
  const recorded = order.flatMap((name) => sections[name] ?? []);
  for (const section of recorded) {
    settleMet(section.rows);
    for (const row of section.rows) {
      const cells = [row.benchmark, row.ours, row.baseline, row.ratio, row.goal, row.met];
      lines.push(`| ${cells.map(escapeCell).join(" | ")} |`);
    }
  }
  // The plan for a site past one machine, worked out from the cluster benchmarks' figures.
  lines.push(
    "",
    ...renderPlan({
      match: sections["match-cluster"]?.figures as Partial<MatchFigures> | undefined,
      chat: sections["chat-cluster"]?.figures as Partial<ChatFigures> | undefined,
      scale: sections["scale-out"]?.figures as Partial<ScaleFigures> | undefined,
      costs: sections["redis-costs"]?.figures as Partial<CostFigures> | undefined,
    }),
  );
  lines.push(
    "",
    "## What the figures mean, and what stands in the way",
    "",
    ...readStandingNotes(),
    "",
  );
  for (const section of recorded) {
    lines.push(`## ${section.title} (measured ${section.date})`, "");
    for (const note of section.notes) lines.push(`- ${note}`);
    lines.push("");
    if (section.details) lines.push(section.details, "");
  }
  return wrapAll(lines).join("\n");
}

/** Writes BENCHMARKS.md and, beside it, the figures it was made from. */
export function writeReport(mdFile: string, sections: Sections, text: string): void {
  writeFileSync(mdFile, text);
  writeFileSync(dataFile(mdFile), `${JSON.stringify(sections, null, 1)}\n`);
}
