import { createHash } from "node:crypto";
import type { Cluster, Redis } from "ioredis";

/** One Redis server or a Redis Cluster, as ioredis speaks to either. */
export type RedisClient = Redis | Cluster;

/** Whether the client speaks to a Redis Cluster (each script's keys then share one slot). */
export function isCluster(redis: RedisClient): redis is Cluster {
  return redis.isCluster;
}

/** A script defined on a client as a command of its own, whose first arguments are its keys. */
type ScriptCommand = (...keysThenArgs: Array<string | number>) => Promise<unknown>;

/**
 * A Lua script with the keys it touches declared (KEYS), so that on a Redis Cluster it runs on
 * the node that holds them. It runs as a command defined on the client (ioredis's defineCommand),
 * one per number of keys it is called with: ioredis sends it in full once per connection, then by
 * its hash, and in full again when a node answers NOSCRIPT (a restart, a SCRIPT FLUSH). Defined
 * so, it is auto-pipelined like any command: on a Redis Cluster, calls to one node go in one
 * write, grouped by their first key (a bare EVALSHA would be grouped by its hash, and is sent on
 * its own there). The commands are defined when the script is made, which must be before the
 * client's first command: an auto-pipeline ioredis opened before a command existed cannot take it.
 */
export class RedisScript {
  readonly #name: string;
  readonly #keyCounts: ReadonlySet<number>;

  constructor(
    private readonly redis: RedisClient,
    readonly source: string,
    keyCounts: readonly number[],
  ) {
    this.#name = `script_${createHash("sha1").update(source).digest("hex")}`;
    for (const count of keyCounts) {
      redis.defineCommand(`${this.#name}_${count}`, { numberOfKeys: count, lua: source });
    }
    this.#keyCounts = new Set(keyCounts);
  }

  run(keys: readonly string[], args: ReadonlyArray<string | number>): Promise<unknown> {
    if (!this.#keyCounts.has(keys.length)) {
      return Promise.reject(
        new Error(`a script defined for ${[...this.#keyCounts]} keys was given ${keys.length}`),
      );
    }
    // A defined command is a property ioredis adds at run time, so its type does not know it.
    const command = (this.redis as unknown as Record<string, ScriptCommand>)[
      `${this.#name}_${keys.length}`
    ] as ScriptCommand;
    return command.call(this.redis, ...keys, ...args);
  }
}

/**
 * Redis cannot be reached right now, or is loading its data or moving slots: the same call may
 * well succeed in a few seconds. (ioredis's own errors, and Redis's replies that say so.)
 */
export function isRedisUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === "MaxRetriesPerRequestError" || error.name === "ClusterAllFailedError") {
    return true;
  }
  const message = error.message;
  return (
    message === "Connection is closed." ||
    message.startsWith("Cluster isn't ready") ||
    message.startsWith("Stream isn't writeable") ||
    /^(LOADING|CLUSTERDOWN|TRYAGAIN|MASTERDOWN|READONLY)\b/.test(message) ||
    ["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT"].includes(
      String((error as { code?: unknown }).code),
    )
  );
}
