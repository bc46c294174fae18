/**
 * Redis's own account of what it ran, for the Redis cost benchmark (cluster/costs.ts): INFO
 * commandstats and cpu on every node, the slow log, and MONITOR to tell the commands an
 * instance sent from those its scripts ran.
 */
import { createHash } from "node:crypto";
import Redis, { Cluster } from "ioredis";
import { CHAT_SCRIPTS, chatScriptSource } from "../../../src/core/chat/redis/lua/chat/index.ts";
import {
  BEAT,
  LEASE_RELEASE,
  LEASE_TAKE,
  POOL_SCRIPTS,
  poolScriptSource,
} from "../../../src/core/chat/redis/lua/pool/index.ts";
import { BAN_SCRIPTS } from "../../../src/core/chat/redis-bans.ts";
import { RATE_LIMIT_SCRIPTS } from "../../../src/core/limits/redis-rate-limiter.ts";
import { monitorOf } from "../../../tests/helpers/monitor.ts";
import { sleep } from "../lib.ts";
import { readRedis as readInfo } from "../probe.ts";

/** Every node of a Redis (one server, or a Cluster's primaries), each on a plain connection. */
export async function redisNodes(urls: string): Promise<Redis[]> {
  const list = urls.split(",");
  if (list.length === 1) return [new Redis(list[0] as string)];
  const seed = new Cluster(
    list.map((u) => {
      const { hostname, port } = new URL(u);
      return { host: hostname, port: Number(port) };
    }),
  );
  await new Promise((resolve) => seed.once("ready", resolve));
  const nodes = seed
    .nodes("master")
    .map((n) => new Redis({ host: n.options.host, port: n.options.port }));
  seed.disconnect();
  return nodes;
}

// The benchmark's own commands, not the site's.
const OWN = new Set(["info", "slowlog", "config", "monitor", "ping", "client", "dbsize", "memory"]);

/** Redis's main threads' CPU (where commands run) and commands, the benchmark's own left out. */
export const readRedis = (nodes: Redis[]) =>
  readInfo(nodes, { mainThread: true, own: (name) => OWN.has(name.split("|")[0] as string) });

/** Clears every node's slow log and has it keep whatever runs longer than `micros`. */
export async function resetSlowlog(nodes: Redis[], micros = 1000) {
  for (const node of nodes) {
    await node.call("CONFIG", "SET", "slowlog-log-slower-than", String(micros));
    await node.call("CONFIG", "SET", "slowlog-max-len", "1024");
    await node.call("SLOWLOG", "RESET");
  }
}

export interface SlowlogReading {
  count: number;
  slowest: Array<{ micros: number; command: string }>;
  /** The entries by what ran (a script by its name, a command by its own), most first. */
  byWhat: Array<{ what: string; count: number; slowestMicros: number }>;
}

/** The site's scripts by name, and by their SHA1 as an EVALSHA names them. */
export interface SiteScripts {
  bySource: ReadonlyArray<readonly [string, string]>;
  bySha: ReadonlyMap<string, string>;
}

/** The site's scripts, so a slow log can say which ran. */
export function siteScripts(): SiteScripts {
  const named = (prefix: string, sources: Record<string, string>) =>
    Object.entries(sources).map(([name, source]) => [`${prefix}.${name}`, source] as const);
  const each = <K extends string>(names: Record<K, unknown>, source: (name: K) => string) =>
    Object.fromEntries(Object.keys(names).map((name) => [name, source(name as K)]));
  const all = [
    ...named("chat", each(CHAT_SCRIPTS, chatScriptSource)),
    ...named("pool", {
      ...each(POOL_SCRIPTS, poolScriptSource),
      beat: BEAT,
      leaseTake: LEASE_TAKE,
      leaseRelease: LEASE_RELEASE,
    }),
    ...named("limits", RATE_LIMIT_SCRIPTS),
    ...named("bans", BAN_SCRIPTS),
  ];
  return {
    bySource: all,
    bySha: new Map(
      all.map(([name, source]) => [createHash("sha1").update(source).digest("hex"), name]),
    ),
  };
}

/**
 * What one slow log entry ran: the script's name for the site's own, else the command. A script
 * sent in full (the first time a connection runs it) is cut by the log to its first 128 bytes
 * and how many more there were: its opening and its length tell which it was.
 */
function whatRan(args: string[], scripts: SiteScripts): string {
  const command = (args[0] ?? "").toLowerCase();
  if (command === "evalsha") return scripts.bySha.get(args[1] ?? "") ?? "evalsha (another script)";
  if (command === "eval") {
    const body = args[1] ?? "";
    const cut = /^([\s\S]*)\.\.\. \((\d+) more bytes\)$/.exec(body);
    const opening = cut?.[1] ?? body;
    const length = cut ? Buffer.byteLength(opening) + Number(cut[2]) : Buffer.byteLength(body);
    const name = scripts.bySource.find(
      ([, source]) => Buffer.byteLength(source) === length && source.startsWith(opening),
    )?.[0];
    return name ? `${name} (sent in full)` : "eval";
  }
  return command;
}

/**
 * What the slow logs kept since their reset, the benchmark's own commands left out: how many
 * entries, the slowest few, and by what.
 */
export async function readSlowlog(
  nodes: Redis[],
  scripts: SiteScripts = { bySource: [], bySha: new Map() },
): Promise<SlowlogReading> {
  const entries: Array<{ micros: number; command: string; what: string }> = [];
  for (const node of nodes) {
    const list = (await node.call("SLOWLOG", "GET", "1024")) as Array<
      [number, number, number, string[]]
    >;
    for (const [, , micros, args] of list) {
      // The benchmark's own readings (INFO with every command's counts is long) are not the site's.
      if (OWN.has((args[0] ?? "").toLowerCase())) continue;
      const what = whatRan(args, scripts);
      entries.push({ micros, what, command: `${what}: ${args.join(" ")}`.slice(0, 80) });
    }
  }
  entries.sort((a, b) => b.micros - a.micros);
  const byWhat = new Map<string, { what: string; count: number; slowestMicros: number }>();
  for (const { what, micros } of entries) {
    const seen = byWhat.get(what) ?? { what, count: 0, slowestMicros: 0 };
    seen.count += 1;
    seen.slowestMicros = Math.max(seen.slowestMicros, micros);
    byWhat.set(what, seen);
  }
  return {
    count: entries.length,
    slowest: entries.slice(0, 5).map(({ micros, command }) => ({ micros, command })),
    byWhat: [...byWhat.values()].sort((a, b) => b.count - a.count),
  };
}

/**
 * Puts Redis processes at real-time priority (SCHED_FIFO 10, every thread), so a slow log holds
 * what the commands took rather than the other processes of this machine (instances, database,
 * load) taking Redis's core in their middle, as a Redis on a host of its own is not. Answers
 * false, changing nothing more, where the system does not allow it (no root or CAP_SYS_NICE).
 */
export function atRealTimePriority(pids: number[]): boolean {
  for (const pid of pids) {
    const run = Bun.spawnSync(["chrt", "--all-tasks", "--fifo", "--pid", "10", String(pid)], {
      stdout: "ignore",
      stderr: "ignore",
    });
    if (run.exitCode !== 0) return false;
  }
  return pids.length > 0;
}

/** The process id of each Redis node (INFO server). */
export async function redisPids(nodes: Redis[]): Promise<number[]> {
  const infos = await Promise.all(nodes.map((node) => node.info("server")));
  return infos.map((info) => Number(/process_id:(\d+)/.exec(info)?.[1]));
}

/**
 * A second Redis on the same cores running a script of about a hundred microseconds of work (as
 * long as the site's scripts take on average) every millisecond: what its slow log keeps is the
 * machine keeping Redis off the CPU mid-command, so the site's slow log is read beside it. `stop`
 * answers its slow log over 1 ms, the scripts it ran and their average time.
 */
export async function startWitness(): Promise<{
  pid: number;
  stop(): Promise<SlowlogReading & { commands: number; microsPerCommand: number }>;
}> {
  const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = listener.port;
  listener.stop(true);
  const server = Bun.spawn(
    [
      "redis-server",
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--save",
      "",
      "--appendonly",
      "no",
    ],
    { stdout: "ignore", stderr: "ignore" },
  );
  // ioredis tries again until the server listens; a server that never does fails the run.
  const redis = new Redis({ port, retryStrategy: () => 50 });
  redis.on("error", () => {});
  const ready = await Promise.race([
    new Promise<boolean>((resolve) => redis.once("ready", () => resolve(true))),
    sleep(10_000).then(() => false),
  ]);
  if (!ready) {
    redis.disconnect();
    server.kill();
    throw new Error(`the witness Redis did not start on port ${port}`);
  }
  await resetSlowlog([redis]);
  await redis.call("CONFIG", "RESETSTAT");
  const work = "local x = 0 for i = 1, tonumber(ARGV[1]) do x = x + i end return x";
  let commands = 0;
  let running = true;
  const beating = (async () => {
    while (running) {
      await redis.eval(work, 0, 12_000);
      commands += 1;
      await sleep(1);
    }
  })();
  return {
    pid: server.pid,
    async stop() {
      running = false;
      await beating;
      const slowlog = await readSlowlog([redis]);
      const stats = String(await redis.call("INFO", "commandstats"));
      const microsPerCommand = Number(/cmdstat_eval:.*usec_per_call=([\d.]+)/.exec(stats)?.[1]);
      redis.disconnect();
      server.kill();
      await server.exited;
      return { ...slowlog, commands, microsPerCommand };
    },
  };
}

/**
 * An argument as MONITOR printed it, as it was sent: ioredis gives the quoted text back with
 * only its quotes unescaped; Redis also escapes backslashes, line ends, tabs and other control
 * bytes (sdscatrepr), which a command sent again must carry as they were.
 */
export function unescapeMonitor(arg: string): string {
  if (!arg.includes("\\")) return arg;
  const named: Record<string, number> = { n: 10, r: 13, t: 9, a: 7, b: 8, "\\": 92 };
  // \xHH is one byte of the UTF-8 text: bytes are gathered, then read as UTF-8.
  const parts: Buffer[] = [];
  let from = 0;
  for (const m of arg.matchAll(/\\(x[0-9a-f]{2}|[nrtab\\])/g)) {
    const code = m[1] as string;
    parts.push(Buffer.from(arg.slice(from, m.index)));
    parts.push(
      Buffer.of(code.length === 3 ? Number.parseInt(code.slice(1), 16) : (named[code] ?? 0)),
    );
    from = m.index + m[0].length;
  }
  parts.push(Buffer.from(arg.slice(from)));
  return Buffer.concat(parts).toString("utf8");
}

/**
 * Counts what instances send to Redis, apart from what their scripts run, by watching MONITOR on
 * every node for a while (MONITOR costs Redis CPU: never during a CPU reading). A transaction
 * (MULTI to EXEC, from one connection) is one round trip: it is written at once and answered at
 * once; each of its commands is counted by name. `keep` is handed each command sent, or each
 * transaction's commands together, with the index of the node it went to.
 */
export async function countSent(
  nodes: Redis[],
  during: () => Promise<void>,
  keep?: (node: number, commands: string[][]) => void,
) {
  let sent = 0;
  let inScripts = 0;
  const byCommand: Record<string, number> = {};
  // MONITOR takes a connection of its own, which must be closed itself.
  const monitors: Redis[] = [];
  for (const [index, node] of nodes.entries()) {
    const monitor = await monitorOf(node);
    monitors.push(monitor);
    /** The transactions under way, by connection. */
    const open = new Map<string, string[][]>();
    monitor.on("monitor", (_time: string, args: string[], source: string) => {
      const name = String(args[0]).toLowerCase();
      if (OWN.has(name)) return;
      if (source.includes("lua")) {
        inScripts += 1;
        return;
      }
      byCommand[name] = (byCommand[name] ?? 0) + 1;
      const command = args.map(unescapeMonitor);
      const transaction = open.get(source);
      if (transaction) {
        transaction.push(command);
        if (name === "exec" || name === "discard") {
          open.delete(source);
          keep?.(index, transaction);
        }
        return;
      }
      sent += 1;
      if (name === "multi") open.set(source, [command]);
      else keep?.(index, [command]);
    });
  }
  await during();
  await sleep(200);
  for (const monitor of monitors) monitor.disconnect();
  return { sent, inScripts, byCommand };
}
