/**
 * BENCHMARKS.md: the table of every section's rows, the plan worked out from the cluster
 * sections' figures (plan.ts), the standing notes (NOTES.md), each section's own notes, and the
 * recorded figures as JSON in a comment at the end, so a run of some benchmarks keeps the
 * others' rows.
 */

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  type ChatFigures,
  type CostFigures,
  type MatchFigures,
  renderPlan,
  type ScaleFigures,
} from "./plan.ts";
import { type Section, settleMet } from "./section.ts";

export type Recorded = Section & { date: string };
export type Sections = Record<string, Recorded>;

export const DATA_MARK = "<!-- bench-data ";

export function readPrevious(file: string): Sections {
  if (!existsSync(file)) return {};
  const text = readFileSync(file, "utf8");
  // Every block of recorded figures, and of each section the newest: a merge of two branches
  // that both wrote BENCHMARKS.md can leave two blocks, each with sections the other lacks.
  const sections: Sections = {};
  for (let at = text.indexOf(DATA_MARK); at !== -1; at = text.indexOf(DATA_MARK, at + 1)) {
    const end = text.indexOf(" -->", at);
    try {
      const block = JSON.parse(text.slice(at + DATA_MARK.length, end)) as Sections;
      for (const [name, section] of Object.entries(block)) {
        const known = sections[name];
        if (!known || section.date > known.date) sections[name] = section;
      }
    } catch {
      // a damaged block: the others still count
    }
  }
  return sections;
}

const escapeCell = (text: string) => text.replace(/\|/g, "\\|");

const NOTES_HEADING = "## What the figures mean, and what stands in the way";

/** Analysis kept with the table; the figures it cites are from the run recorded below. */
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
    "Written by `bun run bench` (`scripts/bench/`). Every server under test and every baseline runs as its own",
    "process and so does every load generator, all on 127.0.0.1 of the same machine; each figure is compared with",
    "a raw baseline measured in the same run (interleaved for the HTTP figures), so that the noise of the machine",
    "falls on both, and discover and the chat also with what a builder would pick instead (Express with",
    "better-sqlite3 under Node; a Socket.IO relay under Node and under Bun; in the same run). Ratio is ours ÷",
    "baseline: for rates higher is better, for times and sizes lower is better.",
    "",
    ...meta,
    "",
    "| Benchmark | Ours | Baseline | Ratio | Goal | Met? |",
    "| --- | --- | --- | --- | --- | --- |",
  ];
  for (const name of order) {
    const section = sections[name];
    if (!section) continue;
    settleMet(section.rows);
    for (const row of section.rows) {
      lines.push(
        `| ${[row.benchmark, row.ours, row.baseline, row.ratio, row.goal, row.met].map(escapeCell).join(" | ")} |`,
      );
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
  lines.push("", NOTES_HEADING, "", ...readStandingNotes(), "");
  for (const name of order) {
    const section = sections[name];
    if (!section) continue;
    lines.push(`## ${section.title} (measured ${section.date})`, "");
    for (const note of section.notes) lines.push(`- ${note}`);
    lines.push("");
    if (section.details) lines.push(section.details, "");
  }
  lines.push(`${DATA_MARK}${JSON.stringify(sections)} -->`, "");
  return lines.join("\n");
}
