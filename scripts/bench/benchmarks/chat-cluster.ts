/**
 * The chat relay through Redis (scripts/cluster): pairs whose two partners are on different
 * instances, against two raw Redis relays; what a message and a "typing" call cost the
 * instances and Redis; idle visitors on one instance on Redis, for memory and presence.
 */

import Redis from "ioredis";
import {
  type ClusterSite,
  chatOn,
  commandList,
  instancesOf,
  medianCost,
  openSite,
  perOperation,
  rawRedisRelays,
} from "../cluster-site.ts";
import {
  chatSettings,
  idleVisitors,
  inTurn,
  log,
  medianRound,
  round,
  rssKiB,
  sleep,
  sustained,
  withServers,
} from "../lib.ts";
import type { ChatLoadResult } from "../load-chat.ts";
import { type ChatFigures, COUNTED } from "../plan.ts";
import { Probe } from "../probe.ts";
import { type Benchmark, fmt, ms, ratioOf, type Section, type Size, yes } from "../section.ts";

/**
 * The chat relay through Redis: pairs whose two partners are on different instances, against
 * two raw Redis relays (raw-redis-relay.ts); then idle visitors on one instance on Redis, for
 * memory and the cost of presence.
 */
async function run(size: Size): Promise<Section> {
  const CHAT = chatSettings(size);
  const pairs = size === "smoke" ? 10 : 1000;
  // 2.5 messages a second per visitor, inside the flood limit.
  const rate = pairs * 5;
  const goal = 20;
  const lowerRates = size === "smoke" ? [pairs] : [1000, 2500];
  const site = await openSite("chat_cluster");
  let stream: { bytes: number; entries: number; keys: number } | undefined;
  let idle: Awaited<ReturnType<typeof idleOnRedis>>;
  let typing: ChatLoadResult;
  let rounds: Record<"raw" | "app", ChatLoadResult[]>;
  const ladder: ChatLoadResult[] = [];
  try {
    rounds = await inTurn(CHAT.rounds, ["raw", "app"] as const, async (mode) => {
      const { prefix, starts } =
        mode === "raw" ? rawRedisRelays(site, 2, "chat-raw") : instancesOf(site, 2, "chat");
      const r = await withServers(starts, async (servers) => {
        const result = await chatOn(site, servers, `chat through Redis (${mode})`, CHAT, {
          mode,
          pairs,
          rate,
        });
        if (mode === "app" && !stream) stream = await streamMemory(site.redisUrl, prefix);
        return result;
      });
      log(
        `  chat through Redis, ${mode === "app" ? "two instances" : "two raw Redis relays"}: sent ${fmt(r.sentRate)}/s, p99 ${r.p99} ms, lost ${r.lost}, errors ${r.errors}, ${r.crossPairs} pairs across`,
      );
      return r;
    });
    // What a "typing" call costs, at the messages' rate: twice the pairs, so that each visitor
    // calls 1.25 times a second, and every call reaches the partner (the broker passes on one
    // per visitor each 500 ms at most; the web sends one every 2 s while its visitor types).
    typing = await withServers(instancesOf(site, 2, "chat-typing").starts, (servers) =>
      chatOn(site, servers, "typing through Redis", CHAT, {
        mode: "app",
        typing: true,
        pairs: pairs * 2,
        rate,
      }),
    );
    // Lower rates, once each: how the delay depends on the load on this machine.
    for (const lower of lowerRates) {
      const r = await withServers(instancesOf(site, 2, "chat-ladder").starts, (servers) =>
        chatOn(site, servers, `chat through Redis at ${lower}/s`, CHAT, {
          mode: "app",
          pairs,
          rate: lower,
        }),
      );
      ladder.push(r);
      log(`  chat through Redis at ${fmt(lower)}/s: p99 ${r.p99} ms`);
    }
    idle = await idleOnRedis(site, size);
  } finally {
    site.stop();
  }
  // What the servers relayed in the window, counted where it cannot be missed: Redis ran the
  // message's one XADD (kept in the chat's stream), the raw relay's one PUBLISH,
  // a typing call's one PUBLISH (a typing call stores nothing). (Messages sent or arrived in the window differ from it by what was queued
  // when the window opened or closed, a lot on a busy machine.)
  const relayed = (r: ChatLoadResult, marker: "publish" | "xadd") =>
    r.probe?.redis?.byCommand[marker] ?? r.arrived;
  const ours = medianRound(rounds.app);
  const theirs = medianRound(rounds.raw);
  const cost = (mode: "raw" | "app") =>
    medianCost(
      rounds[mode].map((r) =>
        perOperation(r.probe, r.idle, relayed(r, mode === "app" ? "xadd" : "publish")),
      ),
    );
  const typingCost = perOperation(typing.probe, typing.idle, relayed(typing, "publish"));
  const ourCost = cost("app");
  const rawCost = cost("raw");
  const byCommand = perOperation(ours.probe, ours.idle, relayed(ours, "xadd")).byCommand;
  const across = (r: ChatLoadResult) => r.crossPairs === r.pairs;
  const p99s = (mode: "raw" | "app") => rounds[mode].map((r) => r.p99).join(", ");
  const summaryOf = (name: string, r: ChatLoadResult) =>
    `${name} sent ${fmt(r.sentRate)}/s${r.skipped > 0 ? ` (${fmt(r.skipped)} skipped by a late generator)` : ""}, delivered ${fmt(r.delivered)} of ${fmt(r.sent)} (${fmt(r.arrived)} arrived within the window), ${r.errors} errors, p50 / p99 / max ${r.p50} / ${r.p99} / ${r.max} ms, ${r.crossPairs} of ${r.pairs} pairs across, CPU of the two servers ${r.probe?.serverCpuEach.join(" and ")} cores, Redis ${r.probe?.redis?.cpu} cores, generator ${r.clientCpu}, pairing took ${r.setupSeconds} s${r.firstError ? ` (first error: ${r.firstError.slice(0, 160)})` : ""}`;
  const bytesPerEntry = stream && stream.entries > 0 ? stream.bytes / stream.entries : Number.NaN;
  const figures: ChatFigures = {
    messageServerUs: ourCost.serverUs,
    messageRedisUs: ourCost.redisUs,
    messageRedisCommands: ourCost.redisCommands,
    rawServerUs: rawCost.serverUs,
    rawRedisUs: rawCost.redisUs,
    rawRedisCommands: rawCost.redisCommands,
    idleVisitors: idle.visitors,
    idleRssKiB: idle.app.rssPerVisitor,
    idleRedisBytes: idle.app.redisBytesPerVisitor,
    idleRedisCommandsPerSecond: idle.app.commandsPerVisitorSecond,
    idleRedisUsPerSecond: idle.app.redisUsPerVisitorSecond,
    idleServerUsPerSecond: idle.app.serverUsPerVisitorSecond,
    streamBytesPerEntry: bytesPerEntry,
    typingServerUs: typingCost.serverUs,
    typingRedisUs: typingCost.redisUs,
    typingRedisCommands: typingCost.redisCommands,
  };
  return {
    title: "Chat relay through Redis (two instances)",
    rows: [
      {
        benchmark: `Chat relay through Redis, ${fmt(pairs)} pairs at ${fmt(rate)} msg/s, partners on two instances: delivery p50 / p99 ms`,
        ours: `${ms(ours.p50)} / ${ms(ours.p99)}`,
        baseline: `${ms(theirs.p50)} / ${ms(theirs.p99)} (two raw Redis relays)`,
        ratio: ratioOf(ours.p99, theirs.p99).toFixed(1),
        goal: `p99 ≤ ${goal} ms`,
        met: yes(ours.p99 <= goal && rounds.app.every((r) => sustained(r) && across(r))),
      },
      {
        benchmark: "Chat relay through Redis: server CPU per message, both instances (µs)",
        ours: fmt(ourCost.serverUs),
        baseline: `${fmt(rawCost.serverUs)} (two raw Redis relays)`,
        ratio: ratioOf(ourCost.serverUs, rawCost.serverUs).toFixed(1),
      },
      {
        benchmark: "Chat relay through Redis: Redis commands / Redis CPU (µs) per message",
        ours: `${fmt(ourCost.redisCommands, 1)} / ${fmt(ourCost.redisUs, 1)}`,
        baseline: `${fmt(rawCost.redisCommands, 1)} / ${fmt(rawCost.redisUs, 1)} (two raw Redis relays)`,
        ratio: ratioOf(ourCost.redisUs, rawCost.redisUs).toFixed(1),
      },
      {
        benchmark: `Resident memory per idle connected chat visitor, one instance on Redis, at ${fmt(idle.visitors)} (KiB)`,
        ours: idle.app.rssPerVisitor.toFixed(1),
        baseline: `${idle.raw.rssPerVisitor.toFixed(1)} (raw Redis relay)`,
        ratio: ratioOf(idle.app.rssPerVisitor, idle.raw.rssPerVisitor).toFixed(1),
        goal: "≤ 30 KB",
        met: yes(idle.app.rssPerVisitor * 1.024 <= 30),
      },
    ],
    notes: [
      `${fmt(pairs)} pairs at ${fmt(rate)}/s (2.5 messages a second per visitor, inside the flood limit), the median of ${CHAT.rounds} round${CHAT.rounds > 1 ? "s" : ""} (p99 of each: ours ${p99s("app")}; raw ${p99s("raw")} ms), each round on fresh servers and a fresh key prefix: ${summaryOf("ours", ours)}; ${summaryOf("two raw Redis relays", theirs)}.`,
      "Visitor i connects to instance i mod 2, and the generator presses start one pair at a time (the first partner on one instance, then, once it waits, the second on the other), so that every pair spans the two instances; each message goes from the sender's instance through Redis to the partner's. The baseline (`raw-redis-relay.ts`, two of them on the same Redis) is a Bun WebSocket server per instance with ioredis as the app uses it (auto-pipelined commands, a second connection subscribed to the instance's own channel): each frame is one PUBLISH to the partner's instance's channel, and what arrives there is handed to the socket it names. No protocol, identity, limits, stream or presence: about as little as a relay through Redis can do.",
      `Per message relayed in the window (counted by Redis: a message's one XADD, the raw relay's one PUBLISH, a typing call's one PUBLISH; on a busy machine fewer or more are relayed in a window than are sent in it), beyond two quiet seconds measured just before the window with the same pairs connected (median of the rounds): ours ${fmt(ourCost.serverUs)} µs of CPU on the two instances together, ${fmt(ourCost.redisUs, 1)} µs of Redis CPU and ${fmt(ourCost.redisCommands, 1)} Redis commands (median round: ${commandList(byCommand)}); counted from the code, ${COUNTED.send.commands}: ${COUNTED.send.how}. Raw: ${fmt(rawCost.serverUs)} µs, ${fmt(rawCost.redisUs, 1)} µs and ${fmt(rawCost.redisCommands, 1)} commands. Redis commands include those its scripts call (INFO commandstats); its CPU is the Redis process's own (INFO cpu).`,
      `At lower rates, the same ${fmt(pairs)} pairs across the instances, once each: ${ladder.map((r) => `${fmt(r.offered)}/s: p50 / p99 / max ${ms(r.p50)} / ${ms(r.p99)} / ${ms(r.max)} ms, the two instances ${r.probe?.serverCpuEach.join(" and ")} cores, Redis ${r.probe?.redis?.cpu} cores`).join("; ")}.`,
      `A "typing" call (${fmt(pairs * 2)} pairs across the two instances, each visitor 1.25 calls a second, alternately started and stopped, ${fmt(typing.sentRate)} calls/s; ${fmt(typing.delivered)} typing events reached partners for ${fmt(typing.sent)} calls in the window, ${typing.errors} errors): ${fmt(typingCost.serverUs)} µs of CPU on the two instances, ${fmt(typingCost.redisUs, 1)} µs of Redis CPU, ${fmt(typingCost.redisCommands, 1)} Redis commands (${commandList(typingCost.byCommand)}); counted from the code, ${COUNTED.typing.commands}: ${COUNTED.typing.how}.`,
      `Events kept in Redis: ${stream ? `${fmt(stream.keys)} chats' streams sampled after the first round held ${fmt(stream.entries)} events in ${fmt(stream.bytes)} bytes (MEMORY USAGE), ${fmt(bytesPerEntry)} bytes an event; a chat's stream keeps its last events (XADD MAXLEN ~) until minutes after the chat ends` : "not sampled"}.`,
      `Idle: ${fmt(idle.visitors)} visitors connected and listening (no chat) on one instance on Redis: VmRSS ${fmt(idle.app.rssBefore)} → ${fmt(idle.app.rssAfter)} KiB (raw Redis relay ${fmt(idle.raw.rssBefore)} → ${fmt(idle.raw.rssAfter)} KiB); the site's keys on Redis held ${fmt(idle.app.redisBytesPerVisitor)} more bytes a visitor (MEMORY USAGE of each key under its prefix). Over ${idle.app.seconds} quiet seconds Redis ran ${fmt(idle.app.commandsPerVisitorSecond, 2)} commands a visitor a second (${commandList(idle.app.byCommand)} a second in all) using ${fmt(idle.app.redisUsPerVisitorSecond, 2)} µs of its CPU a visitor a second; the instance used ${fmt(idle.app.serverUsPerVisitorSecond, 2)} µs a visitor a second. Commands that held Redis 1 ms or more meanwhile (SLOWLOG): ${idle.app.slowMs.length === 0 ? "none" : idle.app.slowMs.map((t) => fmt(t, 1)).join(", ")} ms.`,
    ],
    figures: { ...figures },
  };
}

/** Bytes and entries of some visitors' event streams under a prefix (MEMORY USAGE, XLEN). */
async function streamMemory(redisUrl: string, prefix: string) {
  const redis = new Redis(redisUrl);
  try {
    return await keysMemory(redis, `${prefix}{c:*}:events`, 100);
  } finally {
    await redis.quit();
  }
}

/**
 * What the keys matching `pattern` hold (MEMORY USAGE of each, exact): Redis's used_memory also
 * moves with its clients' buffers and what it frees lazily, and once read less with 5,000
 * visitors connected than before. Streams: the first so many, with their entries (XLEN).
 */
async function keysMemory(redis: Redis, pattern: string, streams?: number) {
  const most = streams ?? Number.POSITIVE_INFINITY;
  let [bytes, entries, keys] = [0, 0, 0];
  let cursor = "0";
  do {
    const [next, found] = await redis.scan(cursor, "MATCH", pattern, "COUNT", 1000);
    cursor = next;
    for (const key of found.slice(0, most - keys)) {
      bytes += Number(await redis.memory("USAGE", key, "SAMPLES", "0"));
      if (streams) entries += await redis.xlen(key);
      keys += 1;
    }
  } while (cursor !== "0" && keys < most);
  return { bytes, entries, keys };
}

/**
 * Idle chat visitors on one instance on Redis against one raw Redis relay: resident memory per
 * visitor, Redis memory, and over a quiet window what presence costs Redis and the instance.
 */
async function idleOnRedis(site: ClusterSite, size: Size) {
  const visitors = { full: 5000, quick: 2000, smoke: 50 }[size];
  const settleMs = size === "smoke" ? 300 : 1500;
  const emptyMs = size === "smoke" ? 500 : 2000;
  const measure = async (mode: "app" | "raw") => {
    const { prefix, starts } =
      mode === "app" ? instancesOf(site, 1, "idle") : rawRedisRelays(site, 1, "idle-raw");
    return withServers(starts, async ([server]) => {
      const redis = new Redis(site.redisUrl);
      const probe = await Probe.open({ servers: [server.pid], redisUrl: site.redisUrl });
      try {
        // One request first, so what is measured is idle, not first use.
        await fetch(`${server.url}/healthz`).catch(() => {});
        await sleep(settleMs);
        const rssBefore = rssKiB(server.pid);
        const memoryBefore = (await keysMemory(redis, `${prefix}*`)).bytes;
        // What the instance and Redis use with nobody connected (timers, Redis's own cron).
        const empty = await probe.over(emptyMs);
        const load = await idleVisitors(server.url, mode, visitors);
        try {
          await sleep(emptyMs);
          const rssAfter = rssKiB(server.pid);
          // Whatever holds Redis a millisecond or more is logged.
          await redis.config("SET", "slowlog-log-slower-than", "1000");
          await redis.slowlog("RESET");
          const quiet = await probe.over({ full: 5000, quick: 3000, smoke: 1000 }[size]);
          const slow = (await redis.slowlog("GET", 128)) as Array<
            [number, number, number, string[]]
          >;
          const memoryAfter = (await keysMemory(redis, `${prefix}*`)).bytes;
          const seconds = quiet.seconds;
          return {
            rssBefore,
            rssAfter,
            rssPerVisitor: (rssAfter - rssBefore) / visitors,
            redisBytesPerVisitor: (memoryAfter - memoryBefore) / visitors,
            seconds: round(seconds, 1),
            commandsPerVisitorSecond: (quiet.redis?.commands ?? 0) / seconds / visitors,
            byCommand: Object.fromEntries(
              Object.entries(quiet.redis?.byCommand ?? {}).map(([name, count]) => [
                name,
                Math.round(count / seconds),
              ]),
            ),
            redisUsPerVisitorSecond:
              (Math.max(0, (quiet.redis?.cpu ?? 0) - (empty.redis?.cpu ?? 0)) * 1e6) / visitors,
            serverUsPerVisitorSecond:
              (Math.max(0, (quiet.serverCpu ?? 0) - (empty.serverCpu ?? 0)) * 1e6) / visitors,
            slowMs: slow.map(([, , micros]) => micros / 1000),
          };
        } finally {
          await load.stop();
        }
      } finally {
        await probe.close();
        await redis.quit();
      }
    });
  };
  const raw = await measure("raw");
  const app = await measure("app");
  return { visitors, raw, app };
}

export const chatCluster: Benchmark = { name: "chat-cluster", needs: ["cluster"], run };
