/**
 * Matching load, `bun load-match.ts '<json options>'`: `visitors` listening visitors press start
 * evenly over `spreadMs`. Checks everyone is paired exactly once and measures the time from a
 * partner becoming available (the later press) to 'matched'. With `urls`, visitor i is on the
 * (i mod n)th instance (cross-instance chats counted); a probe covers the presses. With
 * `preferences` (app only), each asks for languages and interests drawn from
 * PREFERENCE_POPULATION; latencies then count the pairs on a shared interest, and the result
 * says how many paired on an interest, a language only, or at random after the delay.
 */
import {
  type ChatMode,
  closeAll,
  isError,
  matchedChat,
  openVisitors,
  startFrame,
  type Visitor,
} from "../../tests/helpers/chat-client.ts";
import { BENCH_SECRET, loadOptions, round, summarize } from "./lib.ts";
import { Probe, type ProbeResult, type ProbeTargets } from "./probe.ts";

export interface MatchLoadOptions {
  url: string;
  /** Several instances of one site: visitors are spread over them in turn (url is then unused). */
  urls?: string[];
  mode: ChatMode;
  visitors: number;
  spreadMs: number;
  firstVisitor?: number;
  probe?: ProbeTargets;
  /** The quiet time measured by the probe before the presses (2 s unless given). */
  quietMs?: number;
  /** Each visitor asks for languages and interests (seeded), as described above. */
  preferences?: { seed: number };
  /**
   * Visitors who press start all at once, and are paired and gone, before the measured ones:
   * the server's code is then warm, as a running site's is. Not counted. None unless given.
   */
  warmup?: number;
}

/**
 * The simulated population: each visitor speaks English with probability 0.6, Traditional
 * Chinese 0.35, Japanese 0.15, Spanish 0.15 (English when none came up), and names 1 to 3
 * interests drawn uniformly from 12 common ones.
 */
export const PREFERENCE_POPULATION = {
  languages: [
    ["en", 0.6],
    ["zh-TW", 0.35],
    ["ja", 0.15],
    ["es", 0.15],
  ] as const,
  interests: [
    "music",
    "films",
    "travel",
    "books",
    "games",
    "cooking",
    "hiking",
    "photography",
    "anime",
    "football",
    "cats",
    "coffee",
  ],
};

/** A seeded generator (LCG), so a run can be repeated. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** Each visitor's chat.start input, as JSON, drawn from PREFERENCE_POPULATION. */
export function drawPreferences(count: number, seed: number): string[] {
  const next = random(seed);
  const { languages, interests } = PREFERENCE_POPULATION;
  return Array.from({ length: count }, () => {
    const spoken = languages.filter(([, p]) => next() < p).map(([tag]) => tag);
    const pool = [...interests];
    const liked: string[] = [];
    for (let n = 1 + Math.floor(next() * 3); n > 0; n--)
      liked.push(...pool.splice(Math.floor(next() * pool.length), 1));
    return JSON.stringify({ languages: spoken.length > 0 ? spoken : ["en"], interests: liked });
  });
}

/** What the 'matched' frame says the two share: languages and interests, or nothing. */
function sharedOf(frame: string): { languages: boolean; interests: boolean } | undefined {
  const found = /"shared":\{"languages":\[([^\]]*)\],"interests":\[([^\]]*)\]/.exec(frame);
  if (!found) return undefined;
  return { languages: (found[1] ?? "") !== "", interests: (found[2] ?? "") !== "" };
}

export interface MatchLoadResult {
  visitors: number;
  pressSeconds: number;
  chats: number;
  matchedOnce: number;
  unmatched: number;
  matchedTwice: number;
  badChats: number;
  /** Chats whose two visitors are connected to different servers. */
  crossChats: number;
  /** p50 / p99 of the visitors of those chats alone (ms). */
  crossP50: number;
  crossP99: number;
  errors: number;
  firstError: string | null;
  p50: number;
  p99: number;
  max: number;
  probe: ProbeResult | null;
  /** The same probe over two idle seconds before the presses. */
  idle: ProbeResult | null;
  /** With preferences: visitors paired on a shared language and interest, a language, neither. */
  sharedInterest?: number;
  sharedLanguageOnly?: number;
  atRandom?: number;
}

/** The warm-up round (see MatchLoadOptions.warmup). */
async function warmUp(options: MatchLoadOptions, count: number): Promise<void> {
  let matched = 0;
  const asked = options.preferences
    ? drawPreferences(count, options.preferences.seed + 1)
    : undefined;
  const visitors = await openVisitors({
    urls: options.urls ?? options.url,
    mode: options.mode,
    count,
    firstVisitor: (options.firstVisitor ?? 0) + 500_000,
    secret: BENCH_SECRET,
    onFrame: (_visitor, frame) => {
      if (matchedChat(frame, options.mode) !== undefined) matched += 1;
    },
  });
  visitors.forEach((visitor, i) => {
    visitor.socket.send(startFrame(visitor, options.mode, asked?.[i]));
  });
  // Those who share a language with nobody would wait out the fallback: not needed here.
  const deadline = performance.now() + 3000;
  while (matched < count * 0.9 && performance.now() < deadline) await Bun.sleep(10);
  closeAll(visitors);
  await Bun.sleep(300);
}

async function main(): Promise<void> {
  const options = loadOptions<MatchLoadOptions>();
  if (options.warmup) await warmUp(options, options.warmup);
  let errors = 0;
  let firstError: string | null = null;
  let matchedEvents = 0;
  const onFrame = (visitor: Visitor, frame: string) => {
    if (isError(frame)) {
      errors += 1;
      firstError ??= frame.slice(0, 300);
      return;
    }
    const chatId = matchedChat(frame, options.mode);
    if (chatId === undefined) return;
    visitor.matchedCount += 1;
    visitor.matchedAt ??= performance.now();
    visitor.chatId ??= chatId;
    matchedEvents += 1;
    if (options.preferences && !shared.has(visitor.index)) {
      shared.set(visitor.index, sharedOf(frame) ?? { languages: false, interests: false });
    }
  };
  const shared = new Map<number, { languages: boolean; interests: boolean }>();
  const asked = options.preferences
    ? drawPreferences(options.visitors, options.preferences.seed)
    : undefined;
  const visitors = await openVisitors({
    urls: options.urls ?? options.url,
    mode: options.mode,
    count: options.visitors,
    firstVisitor: options.firstVisitor ?? 0,
    secret: BENCH_SECRET,
    onFrame,
  });

  const probe = options.probe ? await Probe.open(options.probe) : undefined;
  // Two idle seconds first, everyone connected and listening: what the presses cost is the
  // window's count less what the same seconds cost without them (presence refreshes, sweeps).
  const idle = (await probe?.over(options.quietMs ?? 2000)) ?? null;
  await probe?.begin();
  // Presses spread evenly over the window, sent by a 1 ms timer.
  const started = performance.now() + 50;
  let pressed = 0;
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const now = performance.now();
      const due = Math.min(
        options.visitors,
        Math.floor(((now - started) / options.spreadMs) * options.visitors) + 1,
      );
      while (pressed < due) {
        const visitor = visitors[pressed] as Visitor;
        visitor.pressedAt = performance.now();
        visitor.socket.send(startFrame(visitor, options.mode, asked?.[pressed]));
        pressed += 1;
      }
      if (pressed >= options.visitors) {
        clearInterval(timer);
        resolve();
      }
    }, 1);
  });
  const pressSeconds = (performance.now() - started) / 1000;
  // With preferences, those who share no language with anyone left are paired after the delay.
  const deadline = performance.now() + (options.preferences ? 11_000 : 5000);
  while (matchedEvents < options.visitors && performance.now() < deadline) await Bun.sleep(10);
  const measured = probe ? await probe.end() : null;
  await probe?.close();
  await Bun.sleep(200); // a second 'matched' for anyone would show up here

  const byChat = Map.groupBy(
    visitors.filter((v) => v.chatId !== undefined),
    (v) => v.chatId as string,
  );
  const latencies: number[] = [];
  const crossLatencies: number[] = [];
  let badChats = 0;
  let crossChats = 0;
  for (const members of byChat.values()) {
    const [a, b] = members;
    if (members.length !== 2 || !a || !b) {
      badChats += 1;
      continue;
    }
    if (a.server !== b.server) crossChats += 1;
    const available = Math.max(a.pressedAt ?? 0, b.pressedAt ?? 0);
    // With preferences, a pair on no shared interest waited out the interest window (or the
    // fallback delay) by design.
    if (options.preferences && !shared.get(a.index)?.interests) continue;
    for (const visitor of members) {
      const latency = (visitor.matchedAt ?? available) - available;
      latencies.push(latency);
      if (a.server !== b.server) crossLatencies.push(latency);
    }
  }
  const crossLatency = summarize(crossLatencies);
  const result: MatchLoadResult = {
    visitors: options.visitors,
    pressSeconds: round(pressSeconds, 2),
    chats: byChat.size,
    matchedOnce: visitors.filter((v) => v.matchedCount === 1).length,
    unmatched: visitors.filter((v) => v.matchedCount === 0).length,
    matchedTwice: visitors.filter((v) => v.matchedCount > 1).length,
    badChats,
    crossChats,
    crossP50: crossLatency.p50,
    crossP99: crossLatency.p99,
    errors,
    firstError,
    ...summarize(latencies),
    probe: measured,
    idle,
  };
  if (options.preferences) {
    const counted = [...shared.values()];
    result.sharedInterest = counted.filter((s) => s.interests && s.languages).length;
    result.sharedLanguageOnly = counted.filter((s) => s.languages && !s.interests).length;
    result.atRandom = counted.filter((s) => !s.languages).length;
  }
  closeAll(visitors);
  console.log(JSON.stringify(result));
  process.exit(0);
}

if (import.meta.main) await main();
