/**
 * What the benchmarks past one machine share: a throwaway PostgreSQL and Redis (scripts/cluster)
 * with a migrated database, instances of the app on it as an operator runs them, raw Redis
 * relays beside them, and the cost of an operation beyond the quiet seconds before it.
 */

import { join } from "node:path";
import { appServerEnv, startServer, work, workFolder } from "./lib.ts";
import { copySeed, createDatabase, postmasterPid, startCluster } from "./postgres.ts";
import type { ProbeResult } from "./probe.ts";
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
export function instancesOf(site: ClusterSite, count: number, name: string) {
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
  return { prefix, starts };
}

/** `count` raw Redis relays (raw-redis-relay.ts) sharing one Redis and one prefix. */
export function rawRedisRelays(site: ClusterSite, count: number, name: string) {
  const prefix = `bench-${++sites}-${name}:`;
  const starts = Array.from(
    { length: count },
    () => () =>
      startServer("raw-redis-relay.ts", { REDIS_URL: site.redisUrl, REDIS_PREFIX: prefix }),
  );
  return { prefix, starts };
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

export const commandList = (byCommand: Record<string, number>) =>
  Object.entries(byCommand)
    .map(([name, count]) => `${name.toUpperCase()} ${count}`)
    .join(", ");
