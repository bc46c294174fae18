/**
 * What the processes behind a load used over a measured window: the CPU of the servers under
 * test (by pid), of PostgreSQL (its postmaster and every backend it forked), and Redis's own
 * account of itself (INFO: CPU, commands by name, those its Lua scripts call included, memory).
 * A load generator opens a probe before its window, marks the window's start and end, and
 * reports the difference; the runner uses the same readings around a whole phase.
 */
import { readdirSync } from "node:fs";
import Redis from "ioredis";
import { cpuSeconds, procStat, round } from "./lib.ts";

export interface ProbeTargets {
  /** Servers under test: their CPU is summed. */
  servers?: number[];
  /** PostgreSQL's postmaster: its CPU and that of every process it forked. */
  postgres?: number;
  /** Redis, read through INFO. */
  redisUrl?: string;
}

export interface RedisReading {
  /** CPU seconds (user + system) of the Redis processes, or of their main threads. */
  cpu: number;
  /** Commands run so far by name, those called from scripts included (INFO commandstats). */
  commands: Record<string, number>;
  /** Microseconds Redis spent in each command, by name (a script's include its commands'). */
  usec: Record<string, number>;
  /** Bytes Redis holds for its data (used_memory), when asked for. */
  memory: number;
}

/** What a window cost, per second of the window (cores) and in total (commands). */
export interface ProbeResult {
  seconds: number;
  /** Cores the servers used together, or null. */
  serverCpu: number | null;
  /** Cores each server used, in the order given. */
  serverCpuEach: number[];
  /** Cores PostgreSQL's processes used together, or null. */
  postgresCpu: number | null;
  redis: {
    /** Cores Redis used. */
    cpu: number;
    /** Commands Redis ran in the window (the probe's own left out). */
    commands: number;
    /** The commands by name, most first. */
    byCommand: Record<string, number>;
    /** Change of used_memory over the window, in bytes. */
    memory: number;
  } | null;
}

// The probe's own commands, and those a runner uses to look around: not the app's work.
const OWN_COMMANDS = new Set(
  (
    "info slowlog slowlog|get slowlog|reset config config|set config|get memory memory|usage " +
    "scan xlen client client|setname hello ping select dbsize"
  ).split(" "),
);

export interface ReadOptions {
  /** The main threads' CPU (used_cpu_*_main_thread) instead of the whole processes'. */
  mainThread?: boolean;
  /** used_memory too (INFO memory). */
  memory?: boolean;
  /** Commands (by INFO's name, "slowlog|get") that are the reader's own, not counted. */
  own?: (name: string) => boolean;
}

/** Reads Redis's CPU, command counts and memory, summed over `nodes` (a Cluster's primaries). */
export async function readRedis(nodes: Redis[], options: ReadOptions): Promise<RedisReading> {
  const cpuKeys = options.mainThread
    ? ["used_cpu_sys_main_thread", "used_cpu_user_main_thread"]
    : ["used_cpu_sys", "used_cpu_user"];
  const sections = options.memory ? ["cpu", "memory", "commandstats"] : ["cpu", "commandstats"];
  const total: RedisReading = { cpu: 0, commands: {}, usec: {}, memory: 0 };
  for (const node of nodes) {
    for (const line of String(await node.call("INFO", ...sections)).split("\r\n")) {
      const key = line.slice(0, line.indexOf(":"));
      const value = line.slice(key.length + 1);
      if (cpuKeys.includes(key)) total.cpu += Number(value);
      else if (key === "used_memory") total.memory += Number(value);
      else if (key.startsWith("cmdstat_") && !options.own?.(key.slice(8))) {
        const name = key.slice(8);
        total.commands[name] =
          (total.commands[name] ?? 0) + Number(/calls=(\d+)/.exec(value)?.[1] ?? 0);
        total.usec[name] = (total.usec[name] ?? 0) + Number(/usec=(\d+)/.exec(value)?.[1] ?? 0);
      }
    }
  }
  return total;
}

/** The difference of two readings: commands by name (those run, most first) and in all. */
export function redisDelta(before: RedisReading, after: RedisReading) {
  const byCommand: Record<string, number> = {};
  const usec: Record<string, number> = {};
  let commands = 0;
  for (const [name, calls] of Object.entries(after.commands)) {
    const n = calls - (before.commands[name] ?? 0);
    if (n <= 0) continue;
    byCommand[name] = n;
    usec[name] = (after.usec[name] ?? 0) - (before.usec[name] ?? 0);
    commands += n;
  }
  return {
    cpu: after.cpu - before.cpu,
    commands,
    byCommand: Object.fromEntries(Object.entries(byCommand).sort((a, b) => b[1] - a[1])),
    usec,
    memory: after.memory - before.memory,
  };
}

/** CPU seconds of a process and of every process whose parent it is, by pid. */
export function treeCpu(root: number): Map<number, number> {
  const result = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    try {
      const { parent, cpu } = procStat(pid);
      if (pid === root || parent === root) result.set(pid, cpu);
    } catch {
      // the process ended meanwhile
    }
  }
  return result;
}

/** CPU used between two readings of a process tree; a process that started meanwhile counts whole. */
function treeDelta(before: Map<number, number>, after: Map<number, number>): number {
  let sum = 0;
  for (const [pid, seconds] of after) sum += seconds - (before.get(pid) ?? 0);
  return sum;
}

/** PostgreSQL's postmaster, found from a backend's parent (a backend reports its own pid). */
export const parentOf = (pid: number) => procStat(pid).parent;

interface Mark {
  at: number;
  servers: number[];
  postgres: Map<number, number> | undefined;
  redis: RedisReading | undefined;
}

export class Probe {
  readonly #targets: ProbeTargets;
  readonly #redis: Redis | undefined;
  #start: Mark | undefined;

  private constructor(targets: ProbeTargets, redis: Redis | undefined) {
    this.#targets = targets;
    this.#redis = redis;
  }

  static async open(targets: ProbeTargets): Promise<Probe> {
    let redis: Redis | undefined;
    if (targets.redisUrl) {
      redis = new Redis(targets.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 2 });
      await redis.connect();
    }
    return new Probe(targets, redis);
  }

  async #mark(): Promise<Mark> {
    return {
      at: performance.now(),
      servers: (this.#targets.servers ?? []).map((pid) => cpuSeconds(pid)),
      postgres: this.#targets.postgres ? treeCpu(this.#targets.postgres) : undefined,
      redis: this.#redis
        ? await readRedis([this.#redis], { memory: true, own: (c) => OWN_COMMANDS.has(c) })
        : undefined,
    };
  }

  async begin(): Promise<void> {
    this.#start = await this.#mark();
  }

  async end(): Promise<ProbeResult> {
    const start = this.#start;
    if (!start) throw new Error("the probe was not started");
    const end = await this.#mark();
    const seconds = (end.at - start.at) / 1000;
    const redis = start.redis && end.redis ? redisDelta(start.redis, end.redis) : null;
    return {
      seconds: round(seconds, 3),
      serverCpu:
        start.servers.length > 0
          ? round(end.servers.reduce((s, v, i) => s + v - (start.servers[i] ?? 0), 0) / seconds, 3)
          : null,
      serverCpuEach: end.servers.map((v, i) => round((v - (start.servers[i] ?? 0)) / seconds, 3)),
      postgresCpu:
        start.postgres && end.postgres
          ? round(treeDelta(start.postgres, end.postgres) / seconds, 3)
          : null,
      redis: redis ? { ...redis, cpu: round(redis.cpu / seconds, 3) } : null,
    };
  }

  /** What the next `ms` cost, nothing asked meanwhile. */
  async over(ms: number): Promise<ProbeResult> {
    await this.begin();
    await Bun.sleep(ms);
    return this.end();
  }

  async close(): Promise<void> {
    await this.#redis?.quit().catch(() => {});
  }
}
