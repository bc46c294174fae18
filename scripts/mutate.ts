// Mutation scores of the folders whose rules protect people: `bun run mutate:all` (not part of
// ./scripts/test, which it would make far slower). Each folder is run in groups, every group
// its files with the few tests that cover them, so a mutant costs one short `bun test`; the
// scores are written to reports/mutation/scores.json and reports/mutation/summary.md.
// Name folders to run fewer: `bun run mutate:all limits safety`.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";

type Group = { mutate: string[]; tests: string[] };
type Folder = { folder: string; covers: string; groups: Group[] };

const limits: Folder = {
  folder: "src/core/limits",
  // redis-rate-limiter.ts needs a Redis: its tests are in tests/cluster, run by CLUSTER=1.
  covers: "every file but redis-rate-limiter.ts (tested against a real Redis in tests/cluster)",
  groups: [
    {
      mutate: [
        "src/core/limits/expiring-map.ts",
        "src/core/limits/ip-key.ts",
        "src/core/limits/rate-limiter.ts",
      ],
      tests: [
        "tests/unit/rate-limiter.test.ts",
        "tests/unit/ip-key.test.ts",
        "tests/unit/bounded-state.test.ts",
      ],
    },
  ],
};

const safety: Folder = {
  folder: "src/core/safety",
  covers: "every file",
  groups: [{ mutate: ["src/core/safety/ages.ts"], tests: ["tests/unit/ages.test.ts"] }],
};

const moderation: Folder = {
  folder: "src/core/moderation",
  // The word lists are data: a mutant there drops one word, which no rule decides.
  covers: "every file but the word lists in words/",
  groups: [
    {
      mutate: [
        "src/core/moderation/contact-handles.ts",
        "src/core/moderation/contact-links.ts",
        "src/core/moderation/contact-phones.ts",
        "src/core/moderation/contact-text.ts",
        "src/core/moderation/contacts.ts",
        "src/core/moderation/near-duplicate.ts",
      ],
      tests: [
        "tests/unit/contacts.test.ts",
        "tests/unit/contacts-normalise.test.ts",
        "tests/unit/contacts-near-duplicate.test.ts",
        "tests/unit/contacts-corpus.test.ts",
        "tests/unit/contacts-tables.test.ts",
      ],
    },
    {
      // The moderators: their own tests start no database, so a mutant costs a moment.
      mutate: ["src/core/moderation/external.ts", "src/core/moderation/local.ts"],
      tests: ["tests/unit/moderation.test.ts"],
    },
    {
      mutate: ["src/core/moderation/repeats.ts", "src/core/moderation/reporters.ts"],
      tests: [
        "tests/unit/bounded-state.test.ts",
        "tests/unit/chat-send.test.ts",
        "tests/unit/chat-reports.test.ts",
        "tests/unit/my-bottles.test.ts",
      ],
    },
  ],
};

const chat: Folder = {
  folder: "src/core/chat",
  // The rules: bans, reports, flood, send, start, typing, preferences, blocks, holds and the
  // online count, and the memory engine's matching and holds. Left out: the Redis engine (redis/, redis-bans.ts:
  // it needs a Redis, and tests/cluster runs it), and the memory engine's delivery (relay,
  // presence, state, mailbox, events, ids, memory-broker.ts), which carries messages rather
  // than decides who may meet, and would take a run more than twice as long.
  covers:
    "the rules (bans, reports, flood, send, start, typing, preferences, blocks, holds, online) and the memory engine's matching and holds; not the Redis engine nor the memory engine's delivery",
  groups: [
    {
      mutate: ["src/core/chat/bans.ts", "src/core/chat/reports.ts"],
      tests: [
        "tests/unit/chat-keeping.test.ts",
        "tests/unit/chat-reports.test.ts",
        "tests/unit/confirm-ban.test.ts",
        "tests/unit/escalation.test.ts",
        "tests/unit/chat-start.test.ts",
        "tests/unit/chat-send.test.ts",
        "tests/abuse/reports.test.ts",
      ],
    },
    {
      mutate: [
        "src/core/chat/flood.ts",
        "src/core/chat/send.ts",
        "src/core/chat/start.ts",
        "src/core/chat/typing.ts",
      ],
      tests: [
        "tests/unit/chat-send.test.ts",
        "tests/unit/chat-start.test.ts",
        "tests/unit/typing.test.ts",
        "tests/unit/bounded-state.test.ts",
      ],
    },
    {
      mutate: ["src/core/chat/preferences.ts"],
      tests: ["tests/unit/match-preferences.test.ts"],
    },
    {
      // The memory engine's matching and holds: who may be paired, who is kept apart.
      mutate: ["src/core/chat/memory/pairing.ts", "src/core/chat/memory/holds.ts"],
      tests: ["tests/unit/chat-broker-contract.test.ts", "tests/unit/chat-broker.test.ts"],
    },
    {
      mutate: ["src/core/chat/blocks.ts", "src/core/chat/holds.ts", "src/core/chat/online.ts"],
      tests: [
        "tests/unit/chat-keeping.test.ts",
        "tests/integration/safety.test.ts",
        "tests/integration/chat.test.ts",
      ],
    },
  ],
};

const folders: Record<string, Folder> = { limits, safety, moderation, chat };

type Position = { line: number; column: number };
type Mutant = {
  status: string;
  mutatorName: string;
  replacement?: string;
  location: { start: Position; end: Position };
};
type Report = { files: Record<string, { mutants: Mutant[] }> };
type Counts = { killed: number; timeout: number; survived: number; noCoverage: number };
type FileScore = Counts & { score: number };

const DETECTED = new Set(["Killed", "Timeout"]);
const UNDETECTED = new Set(["Survived", "NoCoverage"]);

function score(counts: Counts): number {
  const detected = counts.killed + counts.timeout;
  const valid = detected + counts.survived + counts.noCoverage;
  return valid === 0 ? 100 : Math.round((detected / valid) * 10_000) / 100;
}

function count(report: Report): Record<string, FileScore> {
  const files: Record<string, FileScore> = {};
  for (const [file, { mutants }] of Object.entries(report.files)) {
    const c: Counts = { killed: 0, timeout: 0, survived: 0, noCoverage: 0 };
    for (const { status } of mutants) {
      if (status === "Killed") c.killed++;
      else if (status === "Timeout") c.timeout++;
      else if (status === "Survived") c.survived++;
      else if (status === "NoCoverage") c.noCoverage++;
    }
    if (mutants.some((m) => DETECTED.has(m.status) || UNDETECTED.has(m.status))) {
      files[file] = { ...c, score: score(c) };
    }
  }
  return files;
}

/** Where a mutant is, and what it does: the same mutant in two reports of the same source. */
const mutantId = (m: Mutant) =>
  `${m.location.start.line}:${m.location.start.column}-${m.location.end.line}:${m.location.end.column} ${m.mutatorName} ${m.replacement}`;

/**
 * Stryker's ranges for the mutants a report left alive (Stryker's columns count from 0, the
 * report's from 1); a range also takes the mutants inside it, tested again too.
 */
function survivorRanges(report: Report): string[] {
  const ranges: string[] = [];
  for (const [file, { mutants }] of Object.entries(report.files)) {
    for (const m of mutants) {
      if (!UNDETECTED.has(m.status)) continue;
      const { start, end } = m.location;
      ranges.push(`${file}:${start.line}:${start.column - 1}-${end.line}:${end.column - 1}`);
    }
  }
  return ranges;
}

// "chat" runs every group of a folder; "chat:2" its second group only, keeping the others'
// last results. With --survivors, only the mutants the group's last report left alive are
// tested again (after tests were added; a mutant killed then is killed still, since tests are
// only ever added), and the report is updated with what they do now.
const survivorsOnly = process.argv.includes("--survivors");
// --rescore reads the groups' last reports again without running Stryker.
const rescore = process.argv.includes("--rescore");
const wanted = process.argv
  .slice(2)
  .filter((arg) => !arg.startsWith("--"))
  .map((arg) => {
    const [name = "", group] = arg.split(":");
    const folder = folders[name];
    const index = group === undefined ? undefined : Number(group) - 1;
    if (!folder || (index !== undefined && !folder.groups[index])) {
      console.error(`unknown folder or group ${arg}; folders: ${Object.keys(folders).join(", ")}`);
      process.exit(2);
    }
    return { name, index };
  });
const chosen = wanted.length
  ? wanted
  : Object.keys(folders).map((name) => ({ name, index: undefined }));
const out = "reports/mutation";
mkdirSync(out, { recursive: true });
const scoresPath = `${out}/scores.json`;

type GroupResult = {
  mutate: string[];
  tests: string[];
  seconds: number;
  at: string;
  files: Record<string, FileScore>;
};
type FolderResult = Counts & {
  folder: string;
  covers: string;
  score: number;
  seconds: number;
  groups: (GroupResult | null)[];
  files: Record<string, FileScore>;
};
// Folders and groups not run this time keep their last results.
let scores: Record<string, FolderResult> = {};
try {
  scores = JSON.parse(readFileSync(scoresPath, "utf8"));
} catch {}

for (const { name, index } of chosen) {
  const folder = folders[name] as Folder;
  const groups: (GroupResult | null)[] = folder.groups.map(
    (_, i) => scores[name]?.groups?.[i] ?? null,
  );
  for (const [i, group] of folder.groups.entries()) {
    if (index !== undefined && index !== i) continue;
    const started = performance.now();
    const reports = `${out}/${name}/${i + 1}`;
    const before: Report | undefined =
      survivorsOnly && !rescore
        ? JSON.parse(readFileSync(`${reports}/mutation.json`, "utf8"))
        : undefined;
    const mutate = before ? survivorRanges(before) : group.mutate;
    console.log(`\n== ${name}:${i + 1} of ${folder.groups.length}: ${group.mutate.join(" ")}`);
    if (mutate.length === 0) continue;
    const run = rescore
      ? { exitCode: 0 }
      : Bun.spawnSync(["bun", "run", "mutate"], {
          env: {
            ...process.env,
            MUTATE: mutate.join(" "),
            MUTATE_TESTS: group.tests.join(" "),
            MUTATE_REPORTS: before ? `${reports}/survivors` : reports,
          },
          stdout: "inherit",
          stderr: "inherit",
        });
    if (run.exitCode !== 0) {
      console.error(`Stryker failed on ${name}:${i + 1} (exit ${run.exitCode})`);
      process.exit(1);
    }
    const seconds = Math.round((performance.now() - started) / 1000);
    let report: Report = JSON.parse(
      readFileSync(`${reports}/${before ? "survivors/" : ""}mutation.json`, "utf8"),
    );
    if (before) {
      const now = new Map<string, string>();
      for (const [file, { mutants }] of Object.entries(report.files)) {
        for (const m of mutants) now.set(`${file} ${mutantId(m)}`, m.status);
      }
      for (const [file, { mutants }] of Object.entries(before.files)) {
        for (const m of mutants) m.status = now.get(`${file} ${mutantId(m)}`) ?? m.status;
      }
      writeFileSync(`${reports}/mutation.json`, JSON.stringify(before));
      report = before;
    }
    const last = groups[i];
    groups[i] = {
      ...group,
      // A full run's time: what running the group costs.
      seconds: (before || rescore) && last ? last.seconds : seconds,
      at: new Date().toISOString(),
      files: count(report),
    };
  }
  const files: Record<string, FileScore> = {};
  let seconds = 0;
  for (const group of groups) {
    if (!group) continue;
    Object.assign(files, group.files);
    seconds += group.seconds;
  }
  const total: Counts = { killed: 0, timeout: 0, survived: 0, noCoverage: 0 };
  for (const c of Object.values(files)) {
    total.killed += c.killed;
    total.timeout += c.timeout;
    total.survived += c.survived;
    total.noCoverage += c.noCoverage;
  }
  scores[name] = {
    folder: folder.folder,
    covers: groups.every(Boolean) ? folder.covers : `${folder.covers}; some groups not run yet`,
    score: score(total),
    ...total,
    seconds,
    groups,
    files,
  };
}

// Read again before writing: another run may have finished other folders meanwhile.
const ran = new Set(chosen.map(({ name }) => name));
try {
  const latest: Record<string, FolderResult> = JSON.parse(readFileSync(scoresPath, "utf8"));
  for (const [name, result] of Object.entries(latest)) if (!ran.has(name)) scores[name] = result;
} catch {}
writeFileSync(scoresPath, `${JSON.stringify(scores, null, 2)}\n`);
const lines = [
  "| Folder | Score | Killed | Survived | Minutes | Covers |",
  "|---|---|---|---|---|---|",
];
for (const value of Object.values(scores)) {
  const s = value as FolderResult;
  lines.push(
    `| ${s.folder} | ${s.score} % | ${s.killed + s.timeout} | ${s.survived + s.noCoverage} | ${(s.seconds / 60).toFixed(1)} | ${s.covers} |`,
  );
}
const summary = `${lines.join("\n")}\n`;
writeFileSync(`${out}/summary.md`, summary);
console.log(`\n${summary}`);
