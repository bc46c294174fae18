/**
 * What the chat costs Redis per operation across two instances on one Redis (or a Cluster): a
 * message, a typing call, a start, an idle visitor a second. For each: the commands Redis ran
 * (INFO commandstats), those the instances sent (MONITOR, in a window of its own) and Redis's
 * main-thread CPU, beyond the background measured just before. Beside them the raw Redis relays
 * and a witness Redis whose slow log says what the machine alone puts there. Run by
 * benchmarks/redis-costs.ts, or alone (`bun scripts/bench/cluster/costs.ts [--smoke | --quick]
 * [--redis-cluster]`, one JSON object).
 */
import { randomBytes } from "node:crypto";
import Redis from "ioredis";
import { KEPT_EVENTS } from "../../../src/core/chat/redis/broker.ts";
import {
  type ChatTester,
  chatTester,
  currentChat,
  isType,
  privateAddress,
} from "../../../tests/helpers/chat-client.ts";
import { startServerProcess } from "../../../tests/helpers/process.ts";
import { BENCH_SECRET, fail, loadAverage, round, sleep, waitUntil } from "../lib.ts";
import { createDatabase, startCluster } from "../postgres.ts";
import { redisDelta as delta } from "../probe.ts";
import type { Size } from "../section.ts";
import {
  atRealTimePriority,
  countSent,
  readRedis,
  readSlowlog,
  redisNodes,
  redisPids,
  resetSlowlog,
  siteScripts,
  startWitness,
} from "./redis.ts";

export type CostResult = Awaited<ReturnType<typeof measureCosts>>;

/** The 12 characters of a message's id after its chat's, as the commands sending it carry it. */
function messageOwnId(commands: string[][]): string | undefined {
  for (const args of commands) {
    for (const arg of args) {
      const id = /"message":\{"id":"([A-Za-z0-9_-]{24})"/.exec(arg)?.[1];
      if (id) return id.slice(12);
    }
  }
  return undefined;
}

/** How much of each a run does, by its size. */
function sizes(size: Size) {
  const small = size !== "full";
  return {
    PAIRS: size === "smoke" ? 10 : size === "quick" ? 50 : 200,
    IDLE_VISITORS: size === "smoke" ? 100 : size === "quick" ? 1000 : 4000,
    IDLE_SECONDS: size === "smoke" ? 1 : size === "quick" ? 5 : 20,
    MESSAGES_PER_VISITOR: small ? 3 : 20,
    TYPING_PER_VISITOR: small ? 2 : 6,
    // Whole heartbeats (every 2 s) and sweeps (every 1 s), so the background is not read high or low.
    BACKGROUND_SECONDS: size === "smoke" ? 0.5 : small ? 2 : 4,
    BURSTS: size === "smoke" ? 1 : 3,
  };
}

const PREFIX = "bench:";

/** What the steps of one run share: the servers, the two instances, the visitors so far. */
type Run = Awaited<ReturnType<typeof openRun>>["run"];

type Sent = Array<[number, string[][]]>;
type Pairs = Array<readonly [ChatTester, ChatTester]>;

let made = 0;
/**
 * `count` visitors listening on their chat stream, visitor i on the instance `urlOf(i)` names
 * (by default alternately the first and the second), a few hundred at a time (a burst of
 * thousands of sockets at once stalls), and past the safety gate unless `confirm` is false.
 */
async function connect(
  run: Run,
  count: number,
  tag: string,
  confirm = true,
  urlOf = (i: number) => (i % 2 ? run.two : run.one).url,
): Promise<ChatTester[]> {
  const all: ChatTester[] = [];
  for (let i = 0; i < count; i += 200) {
    const batch = Array.from({ length: Math.min(200, count - i) }, async (_, j) => {
      made += 1;
      const visitor = chatTester(urlOf(i + j), {
        visitorId: `${tag}${String(made).padStart(8, "0")}${"z".repeat(22)}`.slice(0, 22),
        secret: BENCH_SECRET,
        address: privateAddress(made),
        onEvent: (event) => {
          if (event.type === "message") run.delivered += 1;
        },
      });
      run.visitors.push(visitor);
      visitor.listen();
      await visitor.waitFor(isType("status"), 30_000);
      if (confirm) await visitor.confirmAge();
      return visitor;
    });
    all.push(...(await Promise.all(batch)));
  }
  return all;
}

const chatOf = (visitor: ChatTester) => currentChat(visitor.events);

/** Redis's commands and CPU (µs) a second over a window where nothing is asked of it. */
async function idleWindow(seconds: number, on: Redis[]) {
  const before = await readRedis(on);
  const started = performance.now();
  await sleep(seconds * 1000);
  const took = (performance.now() - started) / 1000;
  const d = delta(before, await readRedis(on));
  return { seconds: took, commands: d.commands / took, cpuUs: (d.cpu * 1e6) / took, d };
}

/**
 * What `work` cost Redis (on `nodes`) beyond the background, per operation: the commands Redis
 * executed (those run inside scripts included) and its CPU (µs, summed over the nodes), by command
 * too. (sentBy counts what the instances sent it: round trips, or fewer when pipelined.)
 */
async function measure(
  run: Run,
  operations: () => number,
  work: () => Promise<void>,
  nodes = run.nodes,
) {
  // Redis's background with what is connected now (heartbeats, sweeps).
  const base = await idleWindow(run.BACKGROUND_SECONDS, nodes);
  const before = await readRedis(nodes);
  const started = performance.now();
  await work();
  const seconds = (performance.now() - started) / 1000;
  const d = delta(before, await readRedis(nodes));
  const n = operations();
  if (n === 0) fail("nothing was done in a measured window");
  const perOperation = (values: Record<string, number>, digits: number) =>
    Object.fromEntries(
      Object.entries(values)
        .sort((a, b) => b[1] - a[1])
        .map(([name, value]) => [name, round(value / n, digits)]),
    );
  return {
    operations: n,
    executed: round((d.commands - base.commands * seconds) / n, 2),
    // Below the background's noise a cost can read negative; it is no less than nothing.
    redisCpuUs: round(Math.max(0, (d.cpu * 1e6 - base.cpuUs * seconds) / n), 1),
    byCommand: perOperation(d.byCommand, 2),
    usecByCommand: perOperation(d.usec, 1),
  };
}

/** What the instances sent Redis for `work` (MONITOR) beyond the background, per operation. */
async function sentBy(
  run: Run,
  operations: () => number,
  work: () => Promise<void>,
  keep?: (node: number, commands: string[][]) => void,
) {
  const base = await countSent(run.nodes, () => sleep(run.BACKGROUND_SECONDS * 1000));
  const started = performance.now();
  const counted = await countSent(run.nodes, work, keep);
  const seconds = (performance.now() - started) / 1000;
  const n = operations();
  const beyond = (sent: number, background = 0) =>
    round((sent - (background / run.BACKGROUND_SECONDS) * seconds) / n, 2);
  return {
    sentByInstances: beyond(counted.sent, base.sent),
    sentByCommand: Object.fromEntries(
      Object.entries(counted.byCommand)
        .map(([name, k]) => [name, beyond(k, base.byCommand[name])] as const)
        .sort((a, b) => b[1] - a[1]),
    ),
  };
}

/**
 * Sends what MONITOR saw again (a command, or a transaction's), each to the node it went
 * to: `rounds` rounds of one per visitor at once, taken in turn from `seen`, each round in
 * one pipeline a node. A message's own id (the 12 characters after its chat's) is made anew
 * wherever it is written, so each is a message of its own.
 */
async function sendAgain(run: Run, seen: Sent, rounds: number): Promise<number> {
  const perRound = run.PAIRS * 2;
  for (let r = 0; r < rounds; r++) {
    const pipelines = run.replayers.map((replayer) => replayer.pipeline());
    for (let i = 0; i < perRound; i++) {
      const [node, commands] = seen[(r * perRound + i) % seen.length] as [number, string[][]];
      const own = messageOwnId(commands);
      const fresh = own && randomBytes(9).toString("base64url");
      for (const [name, ...args] of commands) {
        const sent = own && fresh ? args.map((a) => a.replaceAll(own, fresh)) : args;
        (pipelines[node] as ReturnType<Redis["pipeline"]>).call(name as string, ...sent);
      }
    }
    await Promise.all(pipelines.map((p) => (p.length > 0 ? p.exec() : undefined)));
  }
  return rounds * perRound;
}

/**
 * Chats first, unmeasured, so that every script is known to Redis before anything is counted:
 * ioredis sends a script in full the first time it runs on a connection, and on a Cluster each
 * instance has a connection to each node, where a chat lands by its id. So warm chats are paired
 * from each instance in turn until both have used each node, as a site that has run a while has.
 * A stream is closed too, so that the script letting a visitor go is compiled before the slow log
 * is read, as every other is.
 */
async function warmUp(run: Run): Promise<void> {
  for (let w = 0; w < (run.redisCluster ? 12 : 1); w++) {
    const warm = await connect(run, 2, "w", true, (i) => ((i + w) % 2 ? run.two : run.one).url);
    for (const v of warm) await v.start();
    for (const v of warm) {
      await waitUntil(
        () => chatOf(v) !== undefined,
        30_000,
        () => `a warm-up pair was not matched: ${JSON.stringify(v.events)}`,
      );
    }
    await Promise.all(warm.map((v) => v.api.chat.send.mutate({ content: "warm" })));
    await Promise.all(warm.map((v) => v.api.chat.typing.mutate({ isTyping: true })));
    await Promise.all(warm.map((v) => v.api.chat.typing.mutate({ isTyping: false })));
    await (warm[w % 2] as ChatTester).api.chat.end.mutate();
    await waitUntil(
      () => warm.every((v) => !chatOf(v)),
      30_000,
      () => "a warm-up chat was not ended for both sides",
    );
  }
  const [leaver] = await connect(run, 1, "l", true, () => run.one.url);
  leaver?.leave(1000);
  await sleep(500);
}

/**
 * Presence: Redis's idle CPU with the two instances and nobody connected (their heartbeats and
 * sweeps), then with idle visitors connected, half on each instance; what connecting (the chat
 * stream opened) and leaving (the stream closed, and past the grace period the sweep lets the
 * visitor go) cost each.
 */
async function measurePresence(run: Run, redisAlone: Awaited<ReturnType<typeof idleWindow>>) {
  const alone = await idleWindow(run.IDLE_SECONDS, run.nodes);
  let idle: ChatTester[] = [];
  const connectCost = await measure(
    run,
    () => run.IDLE_VISITORS,
    async () => {
      idle = await connect(run, run.IDLE_VISITORS, "idle", false);
    },
  );
  await sleep(1000);
  const present = await idleWindow(run.IDLE_SECONDS, run.nodes);
  const presence = {
    visitors: run.IDLE_VISITORS,
    seconds: round(present.seconds, 1),
    commandsPerVisitorSecond: round(present.commands / run.IDLE_VISITORS, 4),
    redisCpuUsPerVisitorSecond: round(present.cpuUs / run.IDLE_VISITORS, 3),
    byCommand: present.d.byCommand,
    /** Redis's own housekeeping, a second, with nothing connected (summed over its nodes). */
    redisOwnCpuUsPerSecond: round(redisAlone.cpuUs, 1),
    /** What each instance adds to that with nobody connected: its heartbeats and sweeps. */
    instanceCommandsPerSecond: round(alone.commands / 2, 2),
    instanceRedisCpuUsPerSecond: round(Math.max(0, alone.cpuUs - redisAlone.cpuUs) / 2, 1),
    /**
     * What the visitors add to that, each (below the windows' noise it reads as nothing): the
     * instances vouch for their visitors with one heartbeat, so this stays near zero.
     */
    addedRedisCpuUsPerVisitorSecond: round(
      Math.max(0, present.cpuUs - alone.cpuUs) / run.IDLE_VISITORS,
      3,
    ),
  };
  const goneVisitors = async () => {
    let count = 0;
    for (const node of run.nodes) {
      // On a Cluster only the pool's node holds the key; the others answer MOVED.
      count += await node.zcard(`${PREFIX}{pool}:gone`).catch(() => 0);
    }
    return count;
  };
  const leave = await measure(
    run,
    () => run.IDLE_VISITORS,
    async () => {
      // A few hundred at a time, as they are connected: 4,000 sockets torn down in one instant
      // keep the kernel busy on the cores Redis shares, and held up one SREM for 1.7 ms, when
      // the same SREM alone never takes 0.01 ms.
      for (let i = 0; i < idle.length; i += 200) {
        for (const v of idle.slice(i, i + 200)) v.leave(1000);
        await sleep(50);
      }
      await sleep(1000);
      // A smoke run does not wait out the grace period (15 s): its figure is the close alone.
      if (run.size !== "smoke") {
        await waitUntil(
          async () => (await goneVisitors()) === 0,
          59_000,
          () => "the visitors who left were not let go in 60 s",
          200,
        );
      }
    },
  );
  return { presence, connect: connectCost, leave };
}

/**
 * Starts: pairs across the instances (the first waits on one, the second pairs on the other),
 * one pair at a time; then, for a busy Redis, as many again pressing at once, alternating between
 * the instances, so that Redis takes the scripts back to back as it does at full use. One burst
 * swings with the machine, so the median of three stands for it.
 */
async function measureStarts(run: Run) {
  const flat = await connect(run, run.PAIRS * 2, "a");
  const pairs: Pairs = Array.from(
    { length: run.PAIRS },
    (_, i) => [flat[2 * i], flat[2 * i + 1]] as [ChatTester, ChatTester],
  );
  const bursts: ChatTester[][] = [];
  for (let b = 0; b < run.BURSTS; b++) bursts.push(await connect(run, run.PAIRS * 2, "s"));
  await sleep(1000);
  const startPairs = async (group: Pairs) => {
    for (const [a, b] of group) {
      await a.start();
      await b.start();
    }
    const unmatched = () => group.find(([a, b]) => !chatOf(a) || chatOf(a) !== chatOf(b));
    await waitUntil(
      () => unmatched() === undefined,
      30_000,
      () => `pairs were not matched: ${JSON.stringify(unmatched()?.map((v) => v.events))}`,
    );
  };
  const half = Math.floor(run.PAIRS / 2);
  const start = await measure(
    run,
    () => half * 2,
    () => startPairs(pairs.slice(0, half)),
  );
  const startSent = await sentBy(
    run,
    () => (run.PAIRS - half) * 2,
    () => startPairs(pairs.slice(half)),
  );
  const startBursts = [];
  for (const burst of bursts) {
    const unpaired = () => burst.filter((v) => chatOf(v) === undefined).length;
    startBursts.push(
      await measure(
        run,
        () => burst.length,
        async () => {
          await Promise.all(burst.map((v) => v.start()));
          await waitUntil(
            () => unpaired() === 0,
            30_000,
            () => `${unpaired()} presses were not paired`,
          );
        },
      ),
    );
  }
  const byCpu = startBursts.toSorted((a, b) => a.redisCpuUs - b.redisCpuUs);
  const startBusy = {
    ...(byCpu[Math.floor(byCpu.length / 2)] as (typeof byCpu)[number]),
    bursts: startBursts.map((b) => b.redisCpuUs),
  };
  return { pairs, start: { ...start, ...startSent }, startBusy };
}

/**
 * One operation three ways: what `act` (so many rounds of it, answering how many were done) cost
 * Redis; what the instances sent Redis for it (MONITOR), keeping what `carries` says carried it;
 * and, for a busy Redis, what was kept sent again back to back, `replays` rounds of one per
 * visitor (each reaching the partner's instance like any other; `delivered`: waited for).
 */
async function threeWays(
  run: Run,
  what: string,
  step: {
    act: (rounds: number) => Promise<number>;
    rounds: number;
    sentRounds: number;
    carries: (commands: string[][]) => boolean;
    replays: number;
    delivered?: boolean;
  },
) {
  let done = 0;
  const cost = await measure(
    run,
    () => done,
    async () => {
      done = await step.act(step.rounds);
    },
  );
  const seen: Sent = [];
  let sentDone = 0;
  const sent = await sentBy(
    run,
    () => sentDone,
    async () => {
      sentDone = await step.act(step.sentRounds);
    },
    (node, commands) => {
      if (step.carries(commands)) seen.push([node, commands]);
    },
  );
  if (seen.length === 0) fail(`no ${what} was seen going to Redis`);
  let replayed = 0;
  const busy = await measure(
    run,
    () => replayed,
    async () => {
      const before = run.delivered;
      replayed = await sendAgain(run, seen, step.replays);
      if (!step.delivered) return;
      await waitUntil(
        () => run.delivered - before >= replayed,
        30_000,
        () => `only ${run.delivered - before} of ${replayed} replayed ${what}s were delivered`,
      );
    },
  );
  return { cost: { ...cost, ...sent }, busy };
}

const named = (command: string[] | undefined, ...names: string[]) =>
  names.includes(command?.[0]?.toLowerCase() ?? "");

/**
 * Messages: every visitor sends to their partner across the instances, a few at a time, the
 * messages delivered counted. Sent again: on one Redis the instances' transactions, on a
 * Cluster their send scripts, as many as the raw relays send and in the same rounds.
 */
async function measureMessages(run: Run, pairs: Pairs) {
  const exchange = async (count: number) => {
    const before = run.delivered;
    const target = run.delivered + count * pairs.length * 2;
    for (let m = 0; m < count; m++) {
      // Sentences, as visitors write them: a text this long goes through the rules that
      // remember (repeats), which the shortest greetings skip.
      await Promise.all(
        pairs.flatMap(([a, b]) => [
          a.api.chat.send.mutate({ content: `Nice to meet you, this is message ${m}` }),
          b.api.chat.send.mutate({ content: `Likewise, and here is my reply ${m}` }),
        ]),
      );
      // Within each visitor's flood limit (5 a second).
      await sleep(250);
    }
    await waitUntil(
      () => run.delivered >= target,
      30_000,
      () => `only ${run.delivered} of ${target} messages were delivered`,
    );
    return run.delivered - before;
  };
  const sendSha = [...run.scripts.bySha].find(([, name]) => name === "chat.send")?.[0];
  const { cost, busy } = await threeWays(run, "message", {
    act: exchange,
    rounds: run.MESSAGES_PER_VISITOR,
    sentRounds: Math.max(2, Math.floor(run.MESSAGES_PER_VISITOR / 4)),
    carries: (commands) =>
      (named(commands[0], "multi") && commands.some((c) => named(c, "xadd"))) ||
      (named(commands[0], "evalsha") && commands[0]?.[1] === sendSha),
    replays: run.MESSAGES_PER_VISITOR,
    delivered: true,
  });
  return { message: cost, messageBusy: busy };
}

/**
 * Typing: each visitor alternately starts and stops, slower than the two a second told; sent
 * again: the typing events the instances published.
 */
async function measureTyping(run: Run, pairs: Pairs) {
  const typeAway = async (count: number) => {
    for (let t = 0; t < count; t++) {
      await Promise.all(
        pairs.flat().map((v) => v.api.chat.typing.mutate({ isTyping: t % 2 === 0 })),
      );
      await sleep(600);
    }
    return count * pairs.length * 2;
  };
  const { cost, busy } = await threeWays(run, "typing event", {
    act: typeAway,
    rounds: run.TYPING_PER_VISITOR,
    sentRounds: 2,
    carries: (commands) =>
      commands.length === 1 &&
      named(commands[0], "publish", "spublish") &&
      String(commands[0]?.[2]).includes('"typing"'),
    replays: Math.max(2, run.TYPING_PER_VISITOR),
  });
  return { typing: cost, typingBusy: busy };
}

/** Ends: one side of each pair ends the chat; both are told. */
function measureEnds(run: Run, pairs: Pairs) {
  return measure(
    run,
    () => pairs.length,
    async () => {
      await Promise.all(pairs.map(([a]) => a.api.chat.end.mutate()));
      await waitUntil(
        () => pairs.every(([a, b]) => !chatOf(a) && !chatOf(b)),
        30_000,
        () => "chats were not ended for both sides",
      );
    },
  );
}

/**
 * The raw Redis relays, on the one Redis either way: one PUBLISH per message to a channel another
 * connection subscribes to; the least a kept, relayed message can cost (the site's event appended
 * to its chat's stream, MAXLEN ~ as many as the site keeps, and published, sent bare); and the
 * same in one transaction, a round's transactions in one pipeline as an instance sends a turn's.
 */
async function measureRawRelays(run: Run, sample: string) {
  const publisher = new Redis(run.servers.redisUrl, { enableAutoPipelining: true });
  const subscriber = new Redis(run.servers.redisUrl);
  run.connections.push(publisher, subscriber);
  const channels = Array.from({ length: run.PAIRS * 2 }, (_, i) => `raw:v:${i}`);
  await subscriber.subscribe(...channels);
  let rawDelivered = 0;
  subscriber.on("message", () => {
    rawDelivered += 1;
  });
  const rawCount = run.PAIRS * 2 * run.MESSAGES_PER_VISITOR;
  const rawNodes = run.redisCluster ? await redisNodes(run.servers.redisUrl) : run.nodes;
  if (run.redisCluster) run.connections.push(...rawNodes);
  /** A raw relay: every channel sent `send`'s commands for each message, until delivered. */
  const rawRelay = (send: (channel: string, i: number, m: number) => Promise<unknown>) => {
    rawDelivered = 0;
    return measure(
      run,
      () => rawDelivered,
      async () => {
        for (let m = 0; m < run.MESSAGES_PER_VISITOR; m++) {
          await Promise.all(channels.map((channel, i) => send(channel, i, m)));
        }
        await waitUntil(() => rawDelivered >= rawCount, 10_000, undefined, 10);
      },
      rawNodes,
    );
  };
  const raw = await rawRelay((channel, _i, m) => publisher.publish(channel, `m${m}`));
  /** The event kept (its XADD's arguments after the key) and announced, as the site's are. */
  const entry = (m: number) => ["MAXLEN", "~", KEPT_EVENTS, "*", "m", `m${m}`, "b", sample];
  const announced = (m: number) => `raw.${m}\t${sample}`;
  const kept = await rawRelay((channel, i, m) =>
    Promise.all([
      publisher.call("XADD", `raw:e:${i >> 1}`, ...entry(m)),
      publisher.publish(channel, announced(m)),
    ]),
  );
  let pending: ReturnType<Redis["pipeline"]> | undefined;
  const keptInTransaction = await rawRelay((channel, i, m) => {
    let turn = pending;
    if (!turn) {
      const started = publisher.pipeline();
      turn = started;
      pending = started;
      process.nextTick(() => {
        pending = undefined;
        void started.exec();
      });
    }
    return new Promise((resolve) => {
      turn
        .call("MULTI")
        .call("XADD", `raw:t:${i >> 1}`, ...entry(m))
        .publish(channel, announced(m))
        .call("EXEC", (_error, reply) => resolve(reply));
    });
  });
  return {
    rawPublishRelay: { ...raw, sentByInstances: 1, sentByCommand: { publish: 1 } },
    rawKeptRelay: { ...kept, sentByInstances: 2, sentByCommand: { xadd: 1, publish: 1 } },
    rawKeptInTransaction: {
      ...keptInTransaction,
      sentByInstances: 1,
      sentByCommand: { multi: 1, xadd: 1, publish: 1, exec: 1 },
    },
  };
}

/** The servers, two instances on them and Redis's own housekeeping measured before they came. */
async function openRun(size: Size, redisCluster: boolean, opened: Opened) {
  const servers = startCluster(redisCluster ? 3 : 0);
  opened.stops.push(() => servers.stop());
  const redisUrl = (redisCluster ? servers.clusterUrl : servers.redisUrl) ?? "";
  const env = {
    DB_URL: await createDatabase(servers.adminUrl, "bench_costs"),
    REDIS_URL: redisUrl,
    REDIS_PREFIX: PREFIX,
    SECRET: BENCH_SECRET,
    TRUST_PROXY: "true",
    LOG_FORMAT: "off",
  };
  const nodes = await redisNodes(redisUrl);
  // Connections that send again what the instances sent, one a node (auto-pipelining).
  const replayers = nodes.map(
    (node) =>
      new Redis({ host: node.options.host, port: node.options.port, enableAutoPipelining: true }),
  );
  opened.connections.push(...nodes, ...replayers);
  const sized = sizes(size);
  // Redis alone first: its housekeeping, which no instance or visitor adds to.
  const redisAlone = await idleWindow(sized.IDLE_SECONDS, nodes);
  const [one, two] = [await startServerProcess(env), await startServerProcess(env)];
  opened.stops.push(
    () => one.stop(),
    () => two.stop(),
  );
  const run = {
    ...sized,
    size,
    redisCluster,
    servers,
    nodes,
    one,
    two,
    scripts: siteScripts(),
    // Every visitor and Redis connection opened, closed at the end.
    visitors: opened.visitors,
    connections: opened.connections,
    replayers,
    /** Messages delivered to any visitor so far. */
    delivered: 0,
  };
  return { run, redisAlone };
}

/** What a run opened, closed at its end whatever happened. */
interface Opened {
  visitors: ChatTester[];
  connections: Redis[];
  stops: Array<() => unknown>;
}

async function closeRun(opened: Opened): Promise<void> {
  for (const c of opened.connections) c.disconnect();
  for (const v of opened.visitors) v.leave(1000);
  for (const stop of opened.stops.reverse()) await Promise.resolve(stop()).catch(() => {});
}

/**
 * Two instances on one Redis, or on a 3-primary Redis Cluster (`redisCluster`), each operation
 * measured in its step, in this order (each step uses the visitors the one before left); the raw
 * relays are measured on the one Redis either way.
 */
export async function measureCosts(size: Size, redisCluster = false) {
  const opened: Opened = { visitors: [], connections: [], stops: [] };
  try {
    const { run, redisAlone } = await openRun(size, redisCluster, opened);
    const began = performance.now();
    await warmUp(run);
    // The slow log is read from here on, beside the witness's: the scripts' first runs above
    // (compiling them) are behind, as on a site that has run a while.
    await resetSlowlog(run.nodes);
    const witness = await startWitness();
    opened.stops.push(() => witness.stop());
    const realTime = atRealTimePriority([...(await redisPids(run.nodes)), witness.pid]);
    const presence = await measurePresence(run, redisAlone);
    const { pairs, start, startBusy } = await measureStarts(run);
    const messages = await measureMessages(run, pairs);
    const typing = await measureTyping(run, pairs);
    const end = await measureEnds(run, pairs);
    const sample = JSON.stringify(pairs[0]?.[1].events.find(isType("message")) ?? {});
    const raw = await measureRawRelays(run, sample);
    if (run.delivered === 0) fail("nothing was delivered");
    const slowlog = await readSlowlog(run.nodes, run.scripts);
    const witnessSlowlogOver1ms = await witness.stop();
    opened.stops.pop();
    const version = (await run.nodes[0]?.info("server"))?.match(/redis_version:(\S+)/)?.[1];
    return {
      benchmark: "cluster-costs",
      size,
      redis: redisCluster ? "a 3-primary Redis Cluster" : "one Redis",
      machine: { cores: navigator.hardwareConcurrency, loadAverage: loadAverage() },
      setup: `two instances on ${redisCluster ? "a 3-primary Redis Cluster of" : "one"} Redis ${version} and one PostgreSQL, ${run.PAIRS} pairs across the instances`,
      ...messages,
      ...typing,
      startPerVisitor: start,
      startBusy,
      ...presence,
      end,
      ...raw,
      slowlogOver1ms: slowlog,
      witnessSlowlogOver1ms,
      redisAtRealTimePriority: realTime,
      seconds: round((performance.now() - began) / 1000, 1),
    };
  } finally {
    await closeRun(opened);
  }
}

if (import.meta.main) {
  const size = process.argv.includes("--smoke")
    ? "smoke"
    : process.argv.includes("--quick")
      ? "quick"
      : "full";
  console.log(
    JSON.stringify(await measureCosts(size, process.argv.includes("--redis-cluster")), null, 2),
  );
}
