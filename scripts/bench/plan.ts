/**
 * The plan on paper for a site past one machine (issue 14): 100,000 visitors in the chat at
 * once and 1,000 bottles thrown a second, worked out from the figures the cluster benchmarks
 * recorded (match-cluster, chat-cluster, scale-out) and from the Redis commands counted in the
 * Lua scripts (src/core/chat/redis-lua.ts). BENCHMARKS.md shows it after the table, with the
 * arithmetic, so that a new run of those benchmarks gives a new plan.
 */

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
  /** Redis time one presence refresh holds it, per visitor refreshed (SLOWLOG). */
  refreshUsPerVisitor: number;
  /** Bytes Redis holds per event in a visitor's stream (MEMORY USAGE ÷ XLEN). */
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
  /** Entries a visitor's event stream keeps: XADD MAXLEN ~ 200 trims whole nodes of 100. */
  streamEntries: 250,
};

/**
 * Redis commands per call, counted from the Lua scripts (one instance holding each stream;
 * EVALSHA itself counted as one) and the commands the server sends around them.
 */
export const COUNTED = {
  send: {
    commands: 25,
    how: "MGET (ban check) + EVALSHA + currentChat 2 + banned 3 + HGET ip 1 + two token buckets (HMGET, HSET, PEXPIRE) 6 + partnerOf 1 + RPUSH, LTRIM 2 + two pushes (XADD, PEXPIRE, SMEMBERS, PUBLISH) 8",
  },
  typing: { commands: 7, how: "EVALSHA + currentChat 2 + one push 4" },
  startWaits: {
    commands: 33,
    how: "MGET ×2 + rate limit (EVALSHA + 2 slots × ZREMRANGEBYSCORE, ZCARD, ZADD, PEXPIRE) 9 + EVALSHA + HSET, HDEL, PEXPIRE, SADD, PEXPIRE 5 + banned 3 + status 2 + INCR, ZADD, HSET 3 + ZSCORE present 1 + push 4 + match finds no one 3",
  },
  startPairs: {
    commands: 61,
    how: "as the first up to match, then one candidate looked at (EXISTS alive, banned 3, EXISTS parted) 5 + pair (HSET, SADD, 2 × (ZREM, HSET, LPUSH, LTRIM, PEXPIRE), 3 HMGET, 2 pushes) 23",
  },
  attach: {
    commands: 17,
    how: "the subscription's ban check MGET + EVALSHA + INCR, PEXPIRE alive, SADD, PEXPIRE where, ZADD present 5 + match's ZSCORE pool + XREVRANGE + status (HGET chat, then HMGET chat or ZSCORE pool) 2, and when its last stream closes EVALSHA + DECR, ZADD present, DEL alive, SREM where, ZREM pool 5",
  },
  end: {
    commands: 23,
    how: "EVALSHA + ZREM pool + currentChat 2 + finish (HSET, SREM, SET, 2 PEXPIRE, 2 HSET) 7 + pushes to the partner 8 + the leaver's 'idle' 4",
  },
  refresh: {
    commands: 4,
    how: "per visitor and second: PEXPIRE alive, SADD where, PEXPIRE where, ZADD present (one EVALSHA per instance)",
  },
  sweep: {
    commands: 10,
    how: "per instance and second at most: every 500 ms SET NX (lease), GET, PEXPIRE, EVALSHA, ZRANGEBYSCORE",
  },
};

const n = (value: number, digits = 0) =>
  Number.isFinite(value)
    ? value.toLocaleString("en-US", {
        minimumFractionDigits: digits,
        maximumFractionDigits: digits,
      })
    : "n/a";

export function renderPlan(figures: {
  match?: Partial<MatchFigures>;
  chat?: Partial<ChatFigures>;
  scale?: Partial<ScaleFigures>;
}): string[] {
  const title = `## Plan on paper: ${n(PLAN.visitors)} chat visitors at once and ${n(PLAN.throwsPerSecond)} bottle throws a second`;
  const m = figures.match;
  const c = figures.chat;
  const s = figures.scale;
  if (!m || !c || !s || Object.values({ ...m, ...c, ...s }).some((v) => !Number.isFinite(v))) {
    return [
      title,
      "",
      "Not worked out: it needs the recorded figures of match-cluster, chat-cluster and scale-out (`bun run bench match-cluster chat-cluster scale-out`).",
    ];
  }
  const f = { ...m, ...c, ...s } as MatchFigures & ChatFigures & ScaleFigures;
  const V = PLAN.visitors;
  const W = PLAN.throwsPerSecond;
  const M = V / PLAN.secondsPerMessage;
  const T = M * PLAN.typingPerMessage;
  const S = V / PLAN.secondsPerChat;
  const E = S / 2;
  const A = V / PLAN.secondsPerStream;
  // Instances: CPU in µs a second (millionths of a core). Ends were not measured: costed as a
  // typing call (one call, events to both sides), a rough figure for a small share.
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
  // Redis: commands a second and CPU. Ends were not measured: their Redis CPU is the message's
  // per command, times their counted commands.
  const usPerCommand = f.messageRedisUs / f.messageRedisCommands;
  const endUs = COUNTED.end.commands * usPerCommand;
  const redis = {
    messages: { ops: M, commands: f.messageRedisCommands, us: f.messageRedisUs },
    typing: { ops: T, commands: f.typingRedisCommands, us: f.typingRedisUs },
    starts: { ops: S, commands: f.startRedisCommands, us: f.startRedisUs },
    ends: { ops: E, commands: COUNTED.end.commands, us: endUs },
    streams: {
      ops: A,
      commands: COUNTED.attach.commands,
      us: COUNTED.attach.commands * usPerCommand,
    },
    presence: { ops: V, commands: f.idleRedisCommandsPerSecond, us: f.idleRedisUsPerSecond },
    throws: { ops: W, commands: f.throwRedisCommands, us: f.throwRedisUs },
  };
  const redisCommands = Object.values(redis).reduce((a, r) => a + r.ops * r.commands, 0);
  const redisCores = Object.values(redis).reduce((a, r) => a + r.ops * r.us, 0) / 1e6;
  const presenceShare = (V * f.idleRedisUsPerSecond) / 1e6;
  // Redis CPU one chat visitor needs a second, at this mix: its ceiling is one core's worth.
  const redisPerVisitorUs =
    (M / V) * f.messageRedisUs +
    (T / V) * f.typingRedisUs +
    (S / V) * f.startRedisUs +
    (E / V) * endUs +
    (A / V) * redis.streams.us +
    f.idleRedisUsPerSecond;
  const redisCeiling = (1e6 - W * f.throwRedisUs) / redisPerVisitorUs;
  const streamBytes = PLAN.streamEntries * f.streamBytesPerEntry;
  const redisGiB = (V * (f.idleRedisBytes + streamBytes)) / 1024 ** 3;
  const refreshMs = (perInstance * f.refreshUsPerVisitor) / 1000;
  // PostgreSQL.
  const pgRows = W * f.throwRows + S * f.startRows;
  const pgWal = W * f.throwWalBytes + S * f.startWalBytes;
  const pgCores = (W * f.throwPostgresUs + S * f.startPostgresUs) / 1e6;
  const pct = (share: number) => `${n(share * 100)} %`;

  const row = (cells: string[]) => `| ${cells.join(" | ")} |`;
  const lines = [
    title,
    "",
    `Worked out from the figures recorded below (sections "Matching across two instances", "Chat relay through Redis" and "Two instances against one"), so a new run of those benchmarks gives a new plan. They come from one 2-core machine shared with other work; the costs per operation (CPU per message, commands per message) are the steadier part of them, and CPU on a busy machine reads high rather than low. A message is costed as measured with its two partners on different instances, as nearly every pair is among many instances. Redis's CPU per command falls as more commands arrive together (a typing call cost 74 µs of Redis at 2,000 calls a second and 33–48 µs at 5,000 in the day's runs), so costs measured at 5,000 a second lean high for a Redis that serves 100,000 visitors.`,
    "",
    `**Assumed visitors.** ${n(V)} visitors with the chat open, each in a chat (${n(V / 2)} chats), sending one message every ${PLAN.secondsPerMessage} s on average (M = ${n(V)} ÷ ${PLAN.secondsPerMessage} = ${n(M)} messages/s), with ${PLAN.typingPerMessage} "typing" calls a message (T = ${n(T)}/s), pressing start every ${PLAN.secondsPerChat} s on average (S = ${n(V)} ÷ ${PLAN.secondsPerChat} = ${n(S)} starts/s; one side ends each chat, E = ${n(E)} ends/s); and W = ${n(W)} bottles thrown a second. A process is planned to keep at most ${pct(PLAN.busy)} of a core busy (the rest for bursts, garbage collection and latency).`,
    "",
    "**Measured per operation** (each section's notes say how):",
    "",
    row([
      "Per",
      "Instance CPU (µs)",
      "Redis CPU (µs)",
      "Redis commands (measured)",
      "Redis commands (counted from the code)",
      "PostgreSQL",
    ]),
    row(["---", "---", "---", "---", "---", "---"]),
    row([
      "message, partners on two instances (both instances' CPU)",
      n(f.messageServerUs),
      n(f.messageRedisUs, 1),
      n(f.messageRedisCommands, 1),
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
      n(f.typingRedisUs, 1),
      n(f.typingRedisCommands, 1),
      String(COUNTED.typing.commands),
      "—",
    ]),
    row([
      "press of start (the two presses of a pair, averaged)",
      n(f.startServerUs),
      n(f.startRedisUs, 1),
      n(f.startRedisCommands, 1),
      `${(COUNTED.startWaits.commands + COUNTED.startPairs.commands) / 2} (${COUNTED.startWaits.commands} and ${COUNTED.startPairs.commands})`,
      `${n(f.startRows, 2)} rows, ${n(f.startWalBytes)} B of WAL, ${n(f.startPostgresUs)} µs of CPU`,
    ]),
    row([
      "connected visitor, each second (presence)",
      n(f.idleServerUsPerSecond, 2),
      n(f.idleRedisUsPerSecond, 2),
      n(f.idleRedisCommandsPerSecond, 2),
      `${COUNTED.refresh.commands} (+ ${COUNTED.sweep.commands} per instance)`,
      "—",
    ]),
    row([
      "bottle thrown (one instance)",
      n(f.throwServerUs),
      n(f.throwRedisUs, 1),
      n(f.throwRedisCommands, 1),
      "17 (the rate limit: EVALSHA + 4 slots × ZREMRANGEBYSCORE, ZCARD, ZADD, PEXPIRE)",
      `${n(f.throwRows, 2)} rows, ${n(f.throwWalBytes)} B of WAL, ${n(f.throwPostgresUs)} µs of CPU`,
    ]),
    "",
    `How the counts were made, from \`src/core/chat/redis-lua.ts\` and the calls around the scripts, with each visitor's stream held by one instance: send = ${COUNTED.send.how}; typing = ${COUNTED.typing.how}; a start that waits = ${COUNTED.startWaits.how}; one that pairs = ${COUNTED.startPairs.how}; presence = ${COUNTED.refresh.how}; sweep = ${COUNTED.sweep.how}. Not measured: a chat's end, ${COUNTED.end.commands} commands (${COUNTED.end.how}), costed on Redis at a message's ${n(usPerCommand, 2)} µs a command and on the instances as a typing call; a chat stream opening and closing, ${COUNTED.attach.commands} commands (${COUNTED.attach.how}), once every ${PLAN.secondsPerStream} s per visitor (A = ${n(A)}/s), costed on Redis the same way.`,
    "",
    `**Instances.** CPU a second: messages ${n(M)} × ${n(f.messageServerUs)} µs = ${n(inst.messages / 1e6, 2)} cores; typing ${n(T)} × ${n(f.typingServerUs)} µs = ${n(inst.typing / 1e6, 2)}; starts ${n(S)} × ${n(f.startServerUs)} µs = ${n(inst.starts / 1e6, 2)}; ends ${n(E)} × ${n(f.typingServerUs)} µs = ${n(inst.ends / 1e6, 2)}; presence ${n(V)} × ${n(f.idleServerUsPerSecond, 2)} µs = ${n(inst.presence / 1e6, 2)}; throws ${n(W)} × ${n(f.throwServerUs)} µs = ${n(inst.throws / 1e6, 2)}; in all **${n(instCores, 1)} cores**, so **${n(instances)} instances** at ${pct(PLAN.busy)} of a core each (an instance runs its JavaScript on one thread), ${n(perInstance)} visitors each. Memory: ${n(V)} × ${n(f.idleRssKiB, 1)} KiB = ${n(memoryGiB, 1)} GiB over all instances (${n(memoryGiB / instances, 2)} GiB each beside an instance's ~100 MiB at rest): CPU, not memory, sets the count.`,
    "",
    `**Redis** (one primary; it runs every command and script on one thread). Commands a second: messages ${n(M)} × ${n(f.messageRedisCommands, 1)} + typing ${n(T)} × ${n(f.typingRedisCommands, 1)} + starts ${n(S)} × ${n(f.startRedisCommands, 1)} + ends ${n(E)} × ${COUNTED.end.commands} + streams opened ${n(A)} × ${COUNTED.attach.commands} + presence ${n(V)} × ${n(f.idleRedisCommandsPerSecond, 2)} + throws ${n(W)} × ${n(f.throwRedisCommands, 1)} = **${n(redisCommands)} commands/s**, nearly all inside scripts. CPU: ${n(M)} × ${n(f.messageRedisUs, 1)} + ${n(T)} × ${n(f.typingRedisUs, 1)} + ${n(S)} × ${n(f.startRedisUs, 1)} + ${n(E)} × ${n(endUs, 1)} + ${n(A)} × ${n(redis.streams.us, 1)} + ${n(V)} × ${n(f.idleRedisUsPerSecond, 2)} + ${n(W)} × ${n(f.throwRedisUs, 1)} µs = **${n(redisCores, 2)} of its one core** (${pct(redisCores / PLAN.busy)} of the ${pct(PLAN.busy)} planned), of which presence alone is ${n(presenceShare, 2)}. A chat visitor at this mix needs ${n(redisPerVisitorUs, 1)} µs of Redis a second, so one Redis thread at full use carries about **${n(redisCeiling)} visitors** beside the throws, and ${n(redisCeiling * PLAN.busy)} at ${pct(PLAN.busy)}. Memory: ${n(V)} × (${n(f.idleRedisBytes)} B of presence + a stream of ~${PLAN.streamEntries} events × ${n(f.streamBytesPerEntry)} B = ${n(streamBytes / 1024)} KiB) = **${n(redisGiB, 1)} GiB**; every visitor of the last 24 hours keeps such a stream (its TTL), not only those online. Each instance's presence refresh is one script over all its visitors: ${n(perInstance)} × ${n(f.refreshUsPerVisitor, 2)} µs = **${n(refreshMs)} ms** in which Redis runs nothing else, once a second per instance (${n(instances)} instances: ${pct((V * f.refreshUsPerVisitor) / 1e6)} of Redis's time by the SLOWLOG's wall-clock measure).`,
    "",
    `**PostgreSQL.** Writes: throws ${n(W)} × ${n(f.throwRows, 2)} rows + starts ${n(S)} × ${n(f.startRows, 2)} rows (the visitor-address sighting each start upserts) = **${n(pgRows)} rows/s**, each its own single-statement transaction, ${n(pgWal / 1024 / 1024, 1)} MiB of WAL a second; CPU ${n(W)} × ${n(f.throwPostgresUs)} + ${n(S)} × ${n(f.startPostgresUs)} µs = **${n(pgCores, 2)} cores** (measured with fsync off, on tmpfs: on a real disk each commit also waits for its WAL flush, which this run did not measure). The chat itself writes nothing to PostgreSQL.`,
    "",
    `**What saturates first.** Instances scale out: ${n(instances)} of them, more for more visitors. PostgreSQL needs ${n(pgCores, 2)} cores for ${n(pgRows)} small writes a second, and can use the cores of its machine. Redis does not scale out as the code stands: each chat step is a Lua script that builds its key names from the prefix instead of declaring them in KEYS, so the scripts cannot run on a Redis Cluster, and one primary's one thread carries the whole chat. ${
      redisCores >= PLAN.busy
        ? `Redis is the part that saturates first: it would need ${pct(redisCores)} of its thread for ${n(V)} visitors (full at about ${n(redisCeiling)}), presence alone ${pct(presenceShare)}.`
        : `Redis is the part that saturates first, though within budget at ${n(V)} visitors: ${pct(redisCores)} of its thread (full at about ${n(redisCeiling)} visitors).`
    } What would move the ceiling, in the app (not changed here): refresh presence every few seconds with a longer TTL, or keep it in the one \`present\` sorted set instead of three keys per visitor (${n(f.idleRedisCommandsPerSecond, 1)} commands a visitor a second now, in one script per instance that grows with its visitors); declare the keys in KEYS with a hash tag per visitor or chat, so that a Redis Cluster can shard the chat; and, if nothing else comes to read them, keep the event streams for as long as a socket may resume (a grace of 15 s) rather than 24 hours.`,
  ];
  return lines;
}
