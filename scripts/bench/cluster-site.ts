/**
 * What the benchmarks past one machine share: a throwaway PostgreSQL and Redis (scripts/cluster)
 * with a migrated database, instances of the app on it as an operator runs them, raw Redis
 * relays beside them, and the cost of an operation beyond the quiet seconds before it.
 */

import { join } from "node:path";
import {
  appServerEnv,
  type ChatSettings,
  freshVisitors,
  runChatLoad,
  type ServerChild,
  startServer,
  work,
  workFolder,
} from "./lib.ts";
import type { ChatLoadOptions } from "./load-chat.ts";
import { copySeed, createDatabase, postmasterPid, startCluster } from "./postgres.ts";
import type { ProbeResult } from "./probe.ts";
import { fmt, median } from "./section.ts";
import { seed } from "./seed.ts";

/** A throwaway PostgreSQL and Redis for one section, with a migrated (and maybe seeded) database. */
export interface ClusterSite {
  redisUrl: string;
  dbUrl: string;
  /** PostgreSQL's postmaster, whose processes the probes add up. */
  postmaster: number;
  stop(): void;
}

export async function openSite(name: string, bottles = 0): Promise<ClusterSite> {
  const cluster = startCluster();
  try {
    const dbUrl = await createDatabase(cluster.adminUrl, `bench_${name.replace(/\W/g, "_")}`);
    if (bottles > 0) {
      const file = join(work(), `${name}-seed.db`);
      await seed(file, bottles);
      await copySeed(file, dbUrl);
    }
    return {
      redisUrl: cluster.redisUrl,
      dbUrl,
      postmaster: await postmasterPid(dbUrl),
      stop: () => cluster.stop(),
    };
  } catch (error) {
    cluster.stop();
    throw error;
  }
}

let sites = 0;
/**
 * `count` instances of one site, as an operator runs them: one database, one Redis, one key
 * prefix (fresh for each call, so runs do not meet in the pool) and one secret.
 */
type Start = () => Promise<ServerChild>;
/** `count` starts, one server each: one, two, or a list. */
type Starts<N extends number> = N extends 1 ? [Start] : N extends 2 ? [Start, Start] : Start[];

export function instancesOf<N extends number>(site: ClusterSite, count: N, name: string) {
  const id = ++sites;
  const prefix = `bench-${id}-${name}:`;
  const starts = Array.from({ length: count }, (_, i) => () => {
    const dir = workFolder(`${name}-${id}-${i}`);
    return startServer("app-server.ts", {
      ...appServerEnv(),
      DATA_DIR: dir,
      DB_URL: site.dbUrl,
      REDIS_URL: site.redisUrl,
      REDIS_PREFIX: prefix,
    });
  });
  return { prefix, starts: starts as Starts<N> };
}

/** `count` raw Redis relays (raw-redis-relay.ts) sharing one Redis and one prefix. */
export function rawRedisRelays<N extends number>(site: ClusterSite, count: N, name: string) {
  const prefix = `bench-${++sites}-${name}:`;
  const starts = Array.from(
    { length: count },
    () => () =>
      startServer("raw-redis-relay.ts", { REDIS_URL: site.redisUrl, REDIS_PREFIX: prefix }),
  );
  return { prefix, starts: starts as Starts<N> };
}

/**
 * A chat load on instances of a site, every pair across them when there are two (each message
 * goes from one instance through Redis to the other); the instances and Redis probed.
 */
export function chatOn(
  site: ClusterSite,
  servers: ServerChild[],
  what: string,
  settings: ChatSettings,
  load: Pick<ChatLoadOptions, "mode" | "pairs" | "rate" | "typing">,
) {
  return runChatLoad(what, {
    url: servers[0]?.url ?? "",
    ...(servers.length > 1 ? { urls: servers.map((s) => s.url), across: true } : {}),
    ...load,
    warmupMs: settings.warmupMs,
    durationMs: settings.durationMs,
    firstVisitor: freshVisitors(),
    probe: { servers: servers.map((s) => s.pid), redisUrl: site.redisUrl },
    quietMs: settings.quietMs,
  });
}

/**
 * What `ops` operations cost beyond the quiet seconds measured just before them (presence
 * refreshes and sweeps, which run whether or not anyone does anything): µs of CPU each and Redis
 * commands each, by name too.
 */
export function perOperation(
  window: ProbeResult | null | undefined,
  idle: ProbeResult | null | undefined,
  ops: number,
) {
  const none = Number.NaN;
  if (!window || ops <= 0) {
    return { serverUs: none, postgresUs: none, redisUs: none, redisCommands: none, byCommand: {} };
  }
  const us = (cores: number | null | undefined, quiet: number | null | undefined) =>
    cores === null || cores === undefined
      ? none
      : (Math.max(0, cores - (quiet ?? 0)) * window.seconds * 1e6) / ops;
  const scale = idle ? window.seconds / idle.seconds : 0;
  const byCommand: Record<string, number> = {};
  for (const [name, calls] of Object.entries(window.redis?.byCommand ?? {})) {
    const net = (calls - (idle?.redis?.byCommand[name] ?? 0) * scale) / ops;
    if (net >= 0.05) byCommand[name] = Math.round(net * 10) / 10;
  }
  return {
    serverUs: us(window.serverCpu, idle?.serverCpu),
    postgresUs: us(window.postgresCpu, idle?.postgresCpu),
    redisUs: us(window.redis?.cpu, idle?.redis?.cpu),
    redisCommands: window.redis
      ? (window.redis.commands - (idle?.redis?.commands ?? 0) * scale) / ops
      : none,
    byCommand,
  };
}

/** The median of each figure of the rounds' costs (perOperation's); byCommand the first's. */
export function medianCost(each: Array<ReturnType<typeof perOperation>>) {
  const of = (key: "serverUs" | "postgresUs" | "redisUs" | "redisCommands") =>
    median(each.map((c) => c[key]));
  const [serverUs, postgresUs, redisUs] = [of("serverUs"), of("postgresUs"), of("redisUs")];
  return {
    serverUs,
    postgresUs,
    redisUs,
    redisCommands: of("redisCommands"),
    byCommand: each[0]?.byCommand ?? {},
  };
}

/** What the rounds wrote to PostgreSQL for `ops` operations each: rows and WAL bytes each. */
export function writtenPer(
  writes: Array<{ rows: Record<string, number>; walBytes: number; ops: number }>,
) {
  const sum = (rows: Record<string, number>) => Object.values(rows).reduce((a, b) => a + b, 0);
  return {
    rows: median(writes.map((w) => sum(w.rows) / w.ops)),
    walBytes: median(writes.map((w) => w.walBytes / w.ops)),
    /** The first round's rows by table. */
    tables: Object.entries(writes[0]?.rows ?? {})
      .map(([table, count]) => `${table} ${fmt(count)}`)
      .join(", "),
  };
}

export const commandList = (byCommand: Record<string, number>) =>
  Object.entries(byCommand)
    .map(([name, count]) => `${name.toUpperCase()} ${count}`)
    .join(", ");
