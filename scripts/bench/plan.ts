/**
 * The plan on paper for a site past one machine (issue 14): 100,000 visitors in the chat at
 * once and 1,000 bottles thrown a second, worked out from the figures the cluster benchmarks
 * recorded (match-cluster, chat-cluster, scale-out, redis-costs) and from the Redis commands
 * counted in the code (src/core/chat/redis/lua/chat/). BENCHMARKS.md shows it after the table, with the
 * arithmetic, so that a new run of those benchmarks gives a new plan.
 */

import { fmt } from "./section.ts";

/** Recorded by match-cluster: what one press of start cost, beyond the quiet seconds before. */
export interface MatchFigures {
  startServerUs: number;
  startRedisUs: number;
  startRedisCommands: number;
  startPostgresUs: number;
  startRows: number;
  startWalBytes: number;
}

/** Recorded by chat-cluster: a message relayed across two instances, and idle visitors. */
export interface ChatFigures {
  /** Server CPU per message, both instances together. */
  messageServerUs: number;
  messageRedisUs: number;
  messageRedisCommands: number;
  rawServerUs: number;
  rawRedisUs: number;
  rawRedisCommands: number;
  /** One instance on Redis with idle visitors connected and listening. */
  idleVisitors: number;
  idleRssKiB: number;
  idleRedisBytes: number;
  idleRedisCommandsPerSecond: number;
  idleRedisUsPerSecond: number;
  idleServerUsPerSecond: number;
  /** Bytes Redis holds per event in a chat's stream (MEMORY USAGE ÷ XLEN). */
  streamBytesPerEntry: number;
  /** A "typing" call, both instances together. */
  typingServerUs: number;
  typingRedisUs: number;
  typingRedisCommands: number;
}

/** Recorded by scale-out: a bottle thrown on PostgreSQL + Redis, one instance. */
export interface ScaleFigures {
  throwServerUs: number;
  throwPostgresUs: number;
  throwRedisUs: number;
  throwRedisCommands: number;
  throwRows: number;
  throwWalBytes: number;
}

/** What the plan assumes of the visitors; said in the plan, change here. */
export const PLAN = {
  visitors: 100_000,
  throwsPerSecond: 1000,
  /** A visitor in a chat sends one message this often, on average (seconds). */
  secondsPerMessage: 10,
  /** "Typing" calls per message (the web says typing at most every 2 s, and stopped). */
  typingPerMessage: 2,
  /** A visitor presses start this often, on average (seconds); one side ends each chat. */
  secondsPerChat: 120,
  /** A visitor's chat stream opens (page load, reconnect) this often, on average (seconds). */
  secondsPerStream: 600,
  /** The share of one core an instance, Redis or PostgreSQL is planned to keep busy. */
  busy: 0.5,
};

/** Recorded by redis-costs: what each step costs Redis, on one Redis, beyond the background. */
export interface CostFigures {
  messageExecuted: number;
  messageRedisUs: number;
  typingExecuted: number;
  typingRedisUs: number;
  /** Per visitor pressing start (the two presses of a pair, averaged). */
  startExecuted: number;
  startRedisUs: number;
  /** Per connected visitor a second: the instances' heartbeats and sweeps, shared out. */
  presenceCommands: number;
  presenceRedisUs: number;
  /** A visitor's chat stream opened. */
  connectExecuted: number;
  connectRedisUs: number;
  /** A visitor's stream closed and, past the grace period, let go by the sweep. */
  leaveExecuted: number;
  leaveRedisUs: number;
  /** A chat ended by one side. */
  endExecuted: number;
  endRedisUs: number;
  /** The instances' messages sent again back to back: what a message costs a busy Redis. */
  messageBusyRedisUs?: number;
  /** The typing events sent again back to back: what a typing call costs a busy Redis. */
  typingBusyRedisUs?: number;
  /** Visitors pressing start all at once: what a start costs a busy Redis, per visitor. */
  startBusyRedisUs?: number;
  /** Redis's own housekeeping a second, with nothing connected. */
  redisOwnUsPerSecond?: number;
  /** What an instance adds a second with nobody connected (its heartbeats and sweeps). */
  instanceRedisUsPerSecond?: number;
  /** What a connected idle visitor adds a second beyond that. */
  visitorRedisUsPerSecond?: number;
  /** The least a kept, relayed message costs Redis: the event's XADD and PUBLISH sent bare. */
  keptRelayRedisUs?: number;
  /** The same two commands in one transaction, a round's in one pipeline, as the site sends them. */
  keptTransactionRedisUs?: number;
}

/**
 * Redis commands per call counted from the code (src/core/chat/redis/lua/chat/ and the
 * broker around it), beside the measured ones.
 */
export const COUNTED = {
  send: {
    commands: 4,
    how: "one transaction in the instance's next pipeline of them: MULTI, XADD NOMKSTREAM to the chat's stream (MAXLEN ~) under the name it has only while the chat runs with nobody muted, PUBLISH to the partner's channel, EXEC (only when the append finds no such stream, the send script decides: HMGET of the chat's sides, its end and the mutes, and the XADD and PUBLISH again); on a Redis Cluster the send script on the chat's slot, 3 executed commands (the EVALSHA, its XADD NOMKSTREAM and SPUBLISH)",
  },
  typing: {
    commands: 1,
    how: "one PUBLISH to the partner's channel, nothing stored",
  },
};

/** A figure a run measured: a cost read as nothing, or not read, is not one to plan with. */
const measured = (figure: number | undefined): figure is number =>
  figure !== undefined && Number.isFinite(figure) && figure > 0;

/** How long a chat's stream and state are kept once the chat has ended (the broker's default). */
const KEPT_AFTER_END_SECONDS = 600;

const n = fmt;

export function renderPlan(figures: {
  match?: Partial<MatchFigures>;
  chat?: Partial<ChatFigures>;
  scale?: Partial<ScaleFigures>;
  costs?: Partial<CostFigures>;
}): string[] {
  const title = `## Plan on paper: ${n(PLAN.visitors)} chat visitors at once and ${n(PLAN.throwsPerSecond)} bottle throws a second`;
  const { match: m, chat: c, scale: s, costs: k } = figures;
  if (
    !m ||
    !c ||
    !s ||
    !k ||
    Object.values({ ...m, ...c, ...s, ...k }).some((v) => !Number.isFinite(v))
  ) {
    return [
      title,
      "",
      "Not worked out: it needs the recorded figures of match-cluster, chat-cluster, scale-out and redis-costs (`bun run bench match-cluster chat-cluster scale-out redis-costs`).",
    ];
  }
  const f = { ...m, ...c, ...s, ...k } as MatchFigures & ChatFigures & ScaleFigures & CostFigures;
  const V = PLAN.visitors;
  const W = PLAN.throwsPerSecond;
  const M = V / PLAN.secondsPerMessage;
  const T = M * PLAN.typingPerMessage;
  const S = V / PLAN.secondsPerChat;
  const E = S / 2;
  const A = V / PLAN.secondsPerStream;
  // Instances: CPU in µs a second (millionths of a core). Ends were not measured on the
  // instances: costed as a typing call (one call, events to both sides), a small share.
  const inst = {
    messages: M * f.messageServerUs,
    typing: T * f.typingServerUs,
    starts: S * f.startServerUs,
    ends: E * f.typingServerUs,
    presence: V * f.idleServerUsPerSecond,
    throws: W * f.throwServerUs,
  };
  const instCores = Object.values(inst).reduce((a, b) => a + b, 0) / 1e6;
  const instances = Math.max(2, Math.ceil(instCores / PLAN.busy));
  const perInstance = V / instances;
  const memoryGiB = (V * f.idleRssKiB) / 1024 / 1024;
  // Redis: every step as redis-costs measured it (executed commands, scripts' included); a
  // message, a typing call and a start as they cost a busy Redis, where redis-costs measured
  // that too (a Redis at full use is a busy one). Ends and streams were measured on a mostly
  // idle Redis, which reads high.
  const busyOrIdle = (busy: number | undefined, idle: number) => (measured(busy) ? busy : idle);
  const messageUs = busyOrIdle(f.messageBusyRedisUs, f.messageRedisUs);
  const typingUs = busyOrIdle(f.typingBusyRedisUs, f.typingRedisUs);
  const startUs = busyOrIdle(f.startBusyRedisUs, f.startRedisUs);
  // Presence: Redis's own housekeeping, each instance's heartbeats and sweeps, and what each
  // visitor adds (nearly nothing), where redis-costs measured them apart; else its figure per
  // visitor with 4,000 connected, which counts all of it as theirs.
  const split = [f.redisOwnUsPerSecond, f.instanceRedisUsPerSecond, f.visitorRedisUsPerSecond];
  const presenceSplit = split.every((v) => v !== undefined && Number.isFinite(v))
    ? {
        own: f.redisOwnUsPerSecond as number,
        instance: f.instanceRedisUsPerSecond as number,
        visitor: f.visitorRedisUsPerSecond as number,
      }
    : undefined;
  const presenceUs = presenceSplit
    ? presenceSplit.visitor + (presenceSplit.instance * instances) / V
    : f.presenceRedisUs;
  const redisOwnUs = presenceSplit?.own ?? 0;
  const redis = {
    messages: { ops: M, commands: f.messageExecuted, us: messageUs },
    typing: { ops: T, commands: f.typingExecuted, us: typingUs },
    starts: { ops: S, commands: f.startExecuted, us: startUs },
    ends: { ops: E, commands: f.endExecuted, us: f.endRedisUs },
    streams: {
      ops: A,
      commands: f.connectExecuted + f.leaveExecuted,
      us: f.connectRedisUs + f.leaveRedisUs,
    },
    presence: { ops: V, commands: f.presenceCommands, us: presenceUs },
    throws: { ops: W, commands: f.throwRedisCommands, us: f.throwRedisUs },
  };
  const redisCommands = Object.values(redis).reduce((a, r) => a + r.ops * r.commands, 0);
  const redisCores =
    (Object.values(redis).reduce((a, r) => a + r.ops * r.us, 0) + redisOwnUs) / 1e6;
  // Redis CPU one chat visitor needs a second, at this mix: its ceiling is one core's worth.
  const perVisitor = (pick: (r: { ops: number; us: number }) => number) =>
    Object.entries(redis)
      .filter(([name]) => name !== "throws")
      .reduce((a, [, r]) => a + pick(r), 0) / V;
  const redisPerVisitorUs = perVisitor((r) => r.ops * r.us);
  // Instances grow with the visitors, so presence stays this much a visitor at any count.
  const visitorsAt = (share: number) =>
    (share * 1e6 - W * f.throwRedisUs - redisOwnUs) / redisPerVisitorUs;
  const redisCeiling = visitorsAt(1);
  const redisHalf = visitorsAt(PLAN.busy);
  // On a Redis Cluster, messages, typing and ends run on their chat's slot, spread over the
  // primaries; starts, streams opened and closed, and presence run on the pool's one slot.
  const poolUs = redis.starts.ops * redis.starts.us + redis.streams.ops * redis.streams.us;
  const poolPerVisitorUs = (poolUs + V * presenceUs) / V;
  const poolAt = (share: number) => (share * 1e6 - redisOwnUs) / poolPerVisitorUs;
  const poolCeiling = poolAt(1);
  // Memory: a chat's stream holds its events while it runs and for a while after it ends.
  const eventsPerChat = (PLAN.secondsPerChat / PLAN.secondsPerMessage) * 2 + 3;
  const chatsKept = V / 2 + E * KEPT_AFTER_END_SECONDS;
  const streamGiB = (chatsKept * eventsPerChat * f.streamBytesPerEntry) / 1024 ** 3;
  const presenceGiB = (V * f.idleRedisBytes) / 1024 ** 3;
  // PostgreSQL.
  const pgRows = W * f.throwRows + S * f.startRows;
  const pgWal = W * f.throwWalBytes + S * f.startWalBytes;
  const pgCores = (W * f.throwPostgresUs + S * f.startPostgresUs) / 1e6;
  const pct = (share: number) => `${n(share * 100)} %`;
  /** A light-load figure, and beside it the busy Redis's where that one is planned with. */
  const withBusy = (idle: number, planned: number) =>
    planned === idle ? n(idle, 1) : `${n(idle, 1)} (busy: ${n(planned, 1)})`;
  // What messages alone allow, at the least a kept message can cost Redis.
  const floorSentence = () => {
    const floor = f.keptRelayRedisUs;
    if (!measured(floor)) return "";
    const perVisitor = M / V;
    const ceiling = 1e6 / (perVisitor * floor);
    const needed = 1e6 / 500_000 / perVisitor;
    const inTransaction = f.keptTransactionRedisUs;
    const transaction = measured(inTransaction)
      ? ` The same two commands in one transaction, as the site sends a message on one Redis but with nothing of its own: ${n(inTransaction, 1)} µs.`
      : "";
    return `Even at the least a message that is kept and relayed can cost (its event appended to a stream and published, sent bare with no script and no checks: ${n(floor, 1)} µs in the same run), messages alone (${n(perVisitor, 2)} a visitor a second) would fill one Redis thread at ${n(ceiling)} visitors (${n(ceiling * PLAN.busy)} at ${pct(PLAN.busy)}): 500,000 visitors at this mix leave a message ${n(needed, 1)} µs of Redis at full use (${n(needed * PLAN.busy, 1)} at ${pct(PLAN.busy)}) and nothing for starts, ends or presence.${transaction} `;
  };

  const row = (cells: string[]) => `| ${cells.join(" | ")} |`;
  const lines = [
    title,
    "",
    `Worked out from the figures recorded below (sections "Matching across two instances", "Chat relay through Redis", "Two instances against one" and "What the chat costs Redis"), so a new run of those benchmarks gives a new plan. They come from one 2-core machine shared with other work; the costs per operation (CPU per message, commands per message) are the steadier part of them, and CPU on a busy machine reads high rather than low. A message is costed as measured with its two partners on different instances, as nearly every pair is among many instances.`,
    "",
    `**Assumed visitors.** ${n(V)} visitors with the chat open, each in a chat (${n(V / 2)} chats), sending one message every ${PLAN.secondsPerMessage} s on average (M = ${n(V)} ÷ ${PLAN.secondsPerMessage} = ${n(M)} messages/s), with ${PLAN.typingPerMessage} "typing" calls a message (T = ${n(T)}/s), pressing start every ${PLAN.secondsPerChat} s on average (S = ${n(V)} ÷ ${PLAN.secondsPerChat} = ${n(S)} starts/s; one side ends each chat, E = ${n(E)} ends/s), opening their chat stream again (a page load, a reconnect) every ${PLAN.secondsPerStream} s (A = ${n(A)}/s); and W = ${n(W)} bottles thrown a second. A process is planned to keep at most ${pct(PLAN.busy)} of a core busy (the rest for bursts, garbage collection and latency).`,
    "",
    "**Measured per operation** (each section's notes say how):",
    "",
    row([
      "Per",
      "Instance CPU (µs)",
      "Redis CPU (µs)",
      "Redis commands executed (measured)",
      "Redis commands (counted from the code)",
      "PostgreSQL",
    ]),
    row(["---", "---", "---", "---", "---", "---"]),
    row([
      "message, partners on two instances (both instances' CPU)",
      n(f.messageServerUs),
      withBusy(f.messageRedisUs, messageUs),
      n(f.messageExecuted, 2),
      String(COUNTED.send.commands),
      "—",
    ]),
    row([
      "message, two raw Redis relays",
      n(f.rawServerUs),
      n(f.rawRedisUs, 1),
      n(f.rawRedisCommands, 1),
      "1 (PUBLISH)",
      "—",
    ]),
    row([
      '"typing" call',
      n(f.typingServerUs),
      withBusy(f.typingRedisUs, typingUs),
      n(f.typingExecuted, 2),
      String(COUNTED.typing.commands),
      "—",
    ]),
    row([
      "press of start (the two presses of a pair, averaged)",
      n(f.startServerUs),
      withBusy(f.startRedisUs, startUs),
      n(f.startExecuted, 2),
      "—",
      `${n(f.startRows, 2)} rows, ${n(f.startWalBytes)} B of WAL, ${n(f.startPostgresUs)} µs of CPU`,
    ]),
    row(["chat ended by one side", "—", n(f.endRedisUs, 1), n(f.endExecuted, 2), "—", "—"]),
    row([
      "chat stream opened and, later, closed past the grace period",
      "—",
      n(f.connectRedisUs + f.leaveRedisUs, 1),
      n(f.connectExecuted + f.leaveExecuted, 2),
      "—",
      "—",
    ]),
    row([
      "connected visitor, each second (presence)",
      n(f.idleServerUsPerSecond, 2),
      presenceSplit
        ? `${n(presenceUs, 3)} (${n(presenceSplit.visitor, 3)} their own${presenceSplit.instance > 0 ? `, and a ${n(perInstance)}th of an instance's ${n(presenceSplit.instance)}` : "; an instance's heartbeats and sweeps below what the run can tell apart"}; Redis's own ${n(presenceSplit.own)} a second beside)`
        : n(f.presenceRedisUs, 3),
      n(f.presenceCommands, 4),
      "none per visitor: a heartbeat per instance every 2 s, a sweep step per instance every 1 s",
      "—",
    ]),
    row([
      "bottle thrown (one instance)",
      n(f.throwServerUs),
      n(f.throwRedisUs, 1),
      n(f.throwRedisCommands, 1),
      "—",
      `${n(f.throwRows, 2)} rows, ${n(f.throwWalBytes)} B of WAL, ${n(f.throwPostgresUs)} µs of CPU`,
    ]),
    "",
    `Counted from the code: send = ${COUNTED.send.how}; typing = ${COUNTED.typing.how}. Presence costs Redis nothing per visitor and second: a visitor's instance is written when they connect and when they leave, and each instance vouches for all its visitors with one heartbeat; so its figure per visitor falls as visitors are added (measured with ${n(f.idleVisitors)} idle visitors on one instance for memory, and as redis-costs says for commands).${
      presenceSplit
        ? ` Its CPU is planned as redis-costs measured it apart: what an instance's heartbeats and sweeps cost Redis a second, shared by that instance's ${n(perInstance)} visitors, and what each visitor adds (near nothing); Redis's own housekeeping is counted once (${n(presenceSplit.own)} µs a second). Until that split was measured, the plan took all of Redis's idle CPU with 4,000 visitors as theirs (${n(f.presenceRedisUs, 3)} µs a visitor a second in this run).`
        : ""
    }`,
    "",
    `**Instances.** CPU a second: messages ${n(M)} × ${n(f.messageServerUs)} µs = ${n(inst.messages / 1e6, 2)} cores; typing ${n(T)} × ${n(f.typingServerUs)} µs = ${n(inst.typing / 1e6, 2)}; starts ${n(S)} × ${n(f.startServerUs)} µs = ${n(inst.starts / 1e6, 2)}; ends ${n(E)} × ${n(f.typingServerUs)} µs = ${n(inst.ends / 1e6, 2)}; presence ${n(V)} × ${n(f.idleServerUsPerSecond, 2)} µs = ${n(inst.presence / 1e6, 2)}; throws ${n(W)} × ${n(f.throwServerUs)} µs = ${n(inst.throws / 1e6, 2)}; in all **${n(instCores, 1)} cores**, so **${n(instances)} instances** at ${pct(PLAN.busy)} of a core each (an instance runs its JavaScript on one thread), ${n(perInstance)} visitors each. Memory: ${n(V)} × ${n(f.idleRssKiB, 1)} KiB = ${n(memoryGiB, 1)} GiB over all instances (${n(memoryGiB / instances, 2)} GiB each beside an instance's ~100 MiB at rest): CPU, not memory, sets the count.`,
    "",
    `**Redis** (one primary; it runs every command and script on one thread). Commands a second: messages ${n(M)} × ${n(f.messageExecuted, 2)} + typing ${n(T)} × ${n(f.typingExecuted, 2)} + starts ${n(S)} × ${n(f.startExecuted, 1)} + ends ${n(E)} × ${n(f.endExecuted, 1)} + streams opened and closed ${n(A)} × ${n(redis.streams.commands, 1)} + presence ${n(V)} × ${n(f.presenceCommands, 4)} + throws ${n(W)} × ${n(f.throwRedisCommands, 1)} = **${n(redisCommands)} commands/s**. CPU (messages, typing and starts as they cost a busy Redis, which one at full use is; the other steps as measured on the runs' mostly idle one, where they cost more): ${n(M)} × ${n(messageUs, 1)} + ${n(T)} × ${n(typingUs, 1)} + ${n(S)} × ${n(startUs, 1)} + ${n(E)} × ${n(f.endRedisUs, 1)} + ${n(A)} × ${n(redis.streams.us, 1)} + ${n(V)} × ${n(presenceUs, 3)}${redisOwnUs > 0 ? ` + ${n(redisOwnUs)} (Redis's own housekeeping)` : ""} + ${n(W)} × ${n(f.throwRedisUs, 1)} µs = **${n(redisCores, 2)} of its one core** (${pct(redisCores / PLAN.busy)} of the ${pct(PLAN.busy)} planned). A chat visitor at this mix needs ${n(redisPerVisitorUs, 1)} µs of Redis a second, so one Redis thread at full use carries about **${n(redisCeiling)} visitors** beside the throws, and ${n(redisHalf)} at ${pct(PLAN.busy)} (the goal: one Redis for 500,000 or more: ${redisHalf >= 500_000 ? "met" : "not met"} at ${pct(PLAN.busy)}${redisCeiling >= 500_000 ? ", met at full use" : ", not met at full use"}). ${floorSentence()}Memory: presence ${n(V)} × ${n(f.idleRedisBytes)} B = ${n(presenceGiB, 2)} GiB; chat streams: ${n(V / 2)} running chats and the ${n(E * KEPT_AFTER_END_SECONDS)} ended in the last ${KEPT_AFTER_END_SECONDS / 60} minutes (kept that long for a resume and a report), ~${n(eventsPerChat)} events each × ${n(f.streamBytesPerEntry)} B = **${n(streamGiB, 2)} GiB**.`,
    "",
    `**What a Redis Cluster adds.** Each chat's state and stream sit on a slot of their own, so messages, typing and ends (${pct((redis.messages.ops * redis.messages.us + redis.typing.ops * redis.typing.us + redis.ends.ops * redis.ends.us) / (redisCores * 1e6))} of Redis's CPU here) spread over the primaries. The pool, presence and who is in which chat share one slot, so that pairing is one atomic step: its node carries every start, stream opened and closed, and the instances' heartbeats and sweeps, ${n(poolPerVisitorUs, 2)} µs a visitor a second at this mix, so the pool's node is full at about **${n(poolCeiling)} visitors** (${n(poolAt(PLAN.busy))} at ${pct(PLAN.busy)}), however many primaries carry the chats. Past that, the pool itself would have to be split (pools by region or language), which the app does not do.`,
    "",
    `**PostgreSQL.** Writes: throws ${n(W)} × ${n(f.throwRows, 2)} rows + starts ${n(S)} × ${n(f.startRows, 2)} rows (the visitor-address sighting each start upserts) = **${n(pgRows)} rows/s**, each its own single-statement transaction, ${n(pgWal / 1024 / 1024, 1)} MiB of WAL a second; CPU ${n(W)} × ${n(f.throwPostgresUs)} + ${n(S)} × ${n(f.startPostgresUs)} µs = **${n(pgCores, 2)} cores** (measured with fsync off, on tmpfs: on a real disk each commit also waits for its WAL flush, which this run did not measure). The chat itself writes nothing to PostgreSQL.`,
    "",
    `**What saturates first.** Instances scale out: ${n(instances)} of them, more for more visitors. PostgreSQL needs ${n(pgCores, 2)} cores for ${n(pgRows)} small writes a second, and can use the cores of its machine. ${
      redisCores >= PLAN.busy
        ? `Redis would need ${pct(redisCores)} of one thread for ${n(V)} visitors (full at about ${n(redisCeiling)}); on a Redis Cluster the chats spread and the pool's node sets the ceiling.`
        : `One Redis is within budget at ${n(V)} visitors: ${pct(redisCores)} of its thread (full at about ${n(redisCeiling)} visitors); on a Redis Cluster the chats spread and the pool's node sets the ceiling.`
    }`,
  ];
  return lines;
}
