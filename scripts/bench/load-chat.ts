/**
 * Chat relay load, `bun load-chat.ts '<json options>'`: `pairs` pairs of visitors sending at an
 * even pace, `rate` messages a second in all, for a warm-up and a measured window. Each message
 * carries its send time; the partner's socket takes the delay on arrival (same clock). Prints
 * one JSON line: send rate, delivery p50/p99/max (ms), lost, errors, server and client CPU.
 * With `urls`, visitor i is on the (i mod n)th instance; with `across`, start is pressed one
 * pair at a time so partners are on different instances (checked). A probe covers the window.
 * Given `visitors` instead (IdleLoadOptions), it holds that many idle visitors open, prints one
 * line once all are connected and keeps them until SIGTERM.
 *
 * Matching load, given `spreadMs` (MatchLoadOptions): `visitors` listening visitors press start
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
  partnerStamps,
  stampedMessage,
  startFrame,
  typingFrame,
  type Visitor,
} from "../../tests/helpers/chat-client.ts";
import { BENCH_SECRET, cpuSeconds, loadOptions, round, summarize } from "./lib.ts";
import { Probe, type ProbeResult, type ProbeTargets } from "./probe.ts";

export interface ChatLoadOptions {
  url: string;
  /** Several instances of one site: visitors are spread over them in turn (url is then unused). */
  urls?: string[];
  /** Pair each visitor on the first instance with one on the second (needs two urls). */
  across?: boolean;
  mode: ChatMode;
  /**
   * Send "typing" calls (app only) instead of messages, alternately started and stopped, to
   * measure what one costs; they carry no time, so the result has no delivery latency.
   */
  typing?: boolean;
  pairs: number;
  /** Messages a second offered by all visitors together. */
  rate: number;
  warmupMs: number;
  durationMs: number;
  serverPid?: number;
  firstVisitor?: number;
  probe?: ProbeTargets;
  /** The quiet time measured by the probe before the messages (2 s unless given). */
  quietMs?: number;
}

export interface ChatLoadResult {
  pairs: number;
  offered: number;
  sentRate: number;
  sent: number;
  delivered: number;
  /**
   * Messages (or typing events) that reached a partner within the window, whenever they were
   * sent: what the servers relayed in it, the count to divide the probe's figures by.
   */
  arrived: number;
  /** `arrived` a second of the window: the rate to divide the server's CPU by. */
  arrivedRate: number;
  lost: number;
  /** Messages due in the window that the generator skipped because it was more than 50 ms late. */
  skipped: number;
  errors: number;
  firstError: string | null;
  p50: number;
  p99: number;
  max: number;
  serverCpu: number | null;
  clientCpu: number;
  setupSeconds: number;
  /** Pairs whose two visitors are on different servers (undefined without `urls`). */
  crossPairs?: number;
  probe?: ProbeResult | null;
  /** The same probe over two quiet seconds before the messages. */
  idle?: ProbeResult;
}

/** Idle visitors for a memory measurement: listening to their stream (app) or just open (raw). */
export interface IdleLoadOptions {
  url: string;
  mode: ChatMode;
  visitors: number;
  firstVisitor?: number;
}

async function holdIdle(options: IdleLoadOptions): Promise<void> {
  const started = performance.now();
  // Listening, not chatting: a visitor on the chat page before the safety gate.
  const visitors = await openLoad(options, options.visitors, () => {}, { answerAge: false });
  let closed = 0;
  for (const visitor of visitors) visitor.socket.addEventListener("close", () => (closed += 1));
  const seconds = round((performance.now() - started) / 1000, 1);
  const ready = { ready: true, url: options.url, pid: process.pid, visitors: visitors.length };
  console.log(JSON.stringify({ ...ready, seconds }));
  const stop = () => {
    closeAll(visitors);
    process.exit(closed === 0 ? 0 : 3);
  };
  process.on("SIGTERM", stop);
  setTimeout(stop, 120_000);
}

/** A load's visitors on its server(s), as its options say, signed as the site signs them. */
const openLoad = (
  options: { url: string; urls?: string[]; mode: ChatMode; firstVisitor?: number },
  count: number,
  onFrame: (visitor: Visitor, frame: string) => void,
  more: { firstVisitor?: number; answerAge?: boolean } = {},
) =>
  openVisitors({
    urls: options.urls ?? options.url,
    mode: options.mode,
    count,
    firstVisitor: options.firstVisitor ?? 0,
    secret: BENCH_SECRET,
    onFrame,
    ...more,
  });

const TYPING = '"type":"typing"';

async function main(options: ChatLoadOptions): Promise<void> {
  const setupStarted = performance.now();
  let windowStart = Number.POSITIVE_INFINITY;
  let windowEnd = Number.POSITIVE_INFINITY;
  const latencies: number[] = [];
  let delivered = 0;
  /** Partner copies (or typing events) that arrived within the window, whenever sent. */
  let arrived = 0;
  let errors = 0;
  let firstError: string | null = null;
  let matched = 0;
  let allMatched: () => void = () => {};
  const matching = new Promise<void>((resolve) => {
    allMatched = resolve;
  });
  const count = options.pairs * 2;

  // Answers awaited to a press of start, while pairing across instances one pair at a time.
  const awaited = new Map<Visitor, { prefix: string; answered: () => void }>();
  const onFrame = (visitor: Visitor, frame: string) => {
    const waiting = awaited.get(visitor);
    if (
      waiting &&
      (options.mode === "raw"
        ? frame === "waiting" || frame.startsWith("matched:")
        : frame.startsWith(waiting.prefix))
    ) {
      awaited.delete(visitor);
      waiting.answered();
    }
    if (isError(frame)) {
      const at = performance.now();
      if (at >= windowStart && at < windowEnd + 3000) {
        errors += 1;
        firstError ??= frame.slice(0, 300);
      }
      return;
    }
    // Typing calls: the partner's typing events are counted, around the window (no time to take).
    if (options.typing && frame.includes(TYPING)) {
      const at = performance.now();
      const events = frame.split(TYPING).length - 1;
      if (at >= windowStart && at < windowEnd + 3000) delivered += events;
      if (at >= windowStart && at < windowEnd) arrived += events;
      return;
    }
    if (visitor.chatId === undefined) {
      const chatId = matchedChat(frame, options.mode);
      if (chatId) {
        visitor.chatId = chatId;
        if (++matched === count) allMatched();
      }
    }
    // Only the partner's copy counts (the sender's is the answer to its call); one frame may
    // bring several messages.
    const stamps = partnerStamps(frame, options.mode);
    if (stamps.length === 0) return;
    const at = performance.now();
    for (const sentAt of stamps) {
      if (at >= windowStart && at < windowEnd) arrived += 1;
      if (sentAt < windowStart || sentAt >= windowEnd) continue;
      latencies.push(at - sentAt);
      delivered += 1;
    }
  };

  const visitors = await openLoad(options, count, onFrame);
  const press = (visitor: Visitor) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`visitor ${visitor.index}'s start was not answered in 10 s`)),
        10_000,
      );
      awaited.set(visitor, {
        prefix: `{"id":${visitor.nextId},`,
        answered: () => {
          clearTimeout(timer);
          resolve();
        },
      });
      visitor.socket.send(startFrame(visitor, options.mode));
    });
  if (options.across) {
    // The pool is empty between pairs, so each second press finds the first and no other.
    for (let i = 0; i + 1 < count; i += 2) {
      await press(visitors[i] as Visitor);
      await press(visitors[i + 1] as Visitor);
    }
  } else {
    // Pressing start one after another pairs neighbours; the generator needs no more than that
    // everyone is in a chat.
    for (const visitor of visitors) visitor.socket.send(startFrame(visitor, options.mode));
  }
  await Promise.race([
    matching,
    Bun.sleep(30_000).then(() => {
      throw new Error(`only ${matched} of ${count} visitors were matched`);
    }),
  ]);
  const chats = [...Map.groupBy(visitors, (v) => v.chatId).values()];
  const crossPairs = options.urls
    ? chats.filter(
        ([a, b, ...more]) => a?.chatId && b && more.length === 0 && a.server !== b.server,
      ).length
    : undefined;
  const probe = options.probe ? await Probe.open(options.probe) : undefined;
  // Two quiet seconds first, everyone in a chat: what the messages cost is the window's count
  // less what the same time costs without them (presence refreshes, sweeps).
  const idle = await probe?.over(options.quietMs ?? 2000);
  const setupSeconds = (performance.now() - setupStarted) / 1000;

  // Even pacing: visitor k sends every count/rate seconds, round robin.
  const started = performance.now();
  windowStart = started + options.warmupMs;
  windowEnd = windowStart + options.durationMs;
  let due = 0;
  let sent = 0;
  let skipped = 0;
  const maxBacklog = Math.ceil(options.rate * 0.05);
  let next = 0;
  let cpuBefore = 0;
  let clientBefore = process.cpuUsage();
  let measuring = false;
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const now = performance.now();
      if (!measuring && now >= windowStart) {
        measuring = true;
        cpuBefore = options.serverPid ? cpuSeconds(options.serverPid) : 0;
        clientBefore = process.cpuUsage();
        void probe?.begin();
      }
      if (now >= windowEnd) {
        clearInterval(timer);
        resolve();
        return;
      }
      const target = Math.floor(((now - started) / 1000) * options.rate);
      // A generator that lost its core for a while (a shared machine) skips what it could not
      // send in time, rather than sending it all at once: a burst no visitor would send, which
      // the app's flood limit refuses. What is skipped is not sent, so the sent rate shows it.
      if (target - due > maxBacklog) {
        if (now >= windowStart) skipped += target - due - maxBacklog;
        due = target - maxBacklog;
      }
      while (due < target) {
        const visitor = visitors[next] as Visitor;
        next = (next + 1) % count;
        due += 1;
        const at = performance.now();
        visitor.socket.send(
          options.typing
            ? typingFrame(visitor, (visitor.nextId & 1) === 0)
            : stampedMessage(visitor, at, options.mode),
        );
        if (at >= windowStart && at < windowEnd) sent += 1;
      }
    }, 2);
  });
  const elapsed = (performance.now() - windowStart) / 1000;
  const cpuAfter = options.serverPid ? cpuSeconds(options.serverPid) : 0;
  const client = process.cpuUsage(clientBefore);
  const measured = probe ? await probe.end() : undefined;
  await probe?.close();
  // What is still in flight gets three seconds to arrive.
  const drainUntil = performance.now() + 3000;
  while (delivered < sent && performance.now() < drainUntil) await Bun.sleep(20);

  const result: ChatLoadResult = {
    pairs: options.pairs,
    offered: options.rate,
    sentRate: round(sent / elapsed, 0),
    sent,
    delivered,
    arrived,
    arrivedRate: round(arrived / elapsed, 0),
    lost: sent - delivered,
    skipped,
    errors,
    firstError,
    ...summarize(latencies),
    serverCpu: options.serverPid ? round((cpuAfter - cpuBefore) / elapsed, 2) : null,
    clientCpu: round((client.user + client.system) / 1e6 / elapsed, 2),
    setupSeconds: round(setupSeconds, 1),
    crossPairs,
    probe: measured,
    idle,
  };
  closeAll(visitors);
  console.log(JSON.stringify(result));
  process.exit(0);
}

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
async function warmUpMatching(options: MatchLoadOptions, count: number): Promise<void> {
  let matched = 0;
  const asked = options.preferences
    ? drawPreferences(count, options.preferences.seed + 1)
    : undefined;
  const firstVisitor = (options.firstVisitor ?? 0) + 500_000;
  const visitors = await openLoad(
    options,
    count,
    (_visitor, frame) => {
      if (matchedChat(frame, options.mode) !== undefined) matched += 1;
    },
    { firstVisitor },
  );
  visitors.forEach((visitor, i) => {
    visitor.socket.send(startFrame(visitor, options.mode, asked?.[i]));
  });
  // Those who share a language with nobody would wait out the fallback: not needed here.
  const deadline = performance.now() + 3000;
  while (matched < count * 0.9 && performance.now() < deadline) await Bun.sleep(10);
  closeAll(visitors);
  await Bun.sleep(300);
}

async function matchLoad(options: MatchLoadOptions): Promise<void> {
  if (options.warmup) await warmUpMatching(options, options.warmup);
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
  const visitors = await openLoad(options, options.visitors, onFrame);

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

if (import.meta.main) {
  const options = loadOptions<ChatLoadOptions | IdleLoadOptions | MatchLoadOptions>();
  if ("spreadMs" in options) await matchLoad(options);
  else await ("visitors" in options ? holdIdle(options) : main(options));
}
