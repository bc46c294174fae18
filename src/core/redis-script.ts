import { createHash } from "node:crypto";
import type { Cluster, Redis } from "ioredis";

/** One Redis server or a Redis Cluster, as ioredis speaks to either. */
export type RedisClient = Redis | Cluster;

/** Whether the client speaks to a Redis Cluster (each script's keys then share one slot). */
export function isCluster(redis: RedisClient): redis is Cluster {
  return redis.isCluster;
}

/**
 * A Lua script run by its hash, with the keys it touches declared (KEYS), so that on a Redis
 * Cluster it runs on the node that holds them. The hash is computed here; a node that does not
 * know it yet (first use, a restart, a SCRIPT FLUSH, another node of a Cluster) answers NOSCRIPT,
 * and the script is sent once in full with EVAL, which also keeps it there for the next calls.
 */
export class RedisScript {
  readonly sha: string;

  constructor(
    private readonly redis: RedisClient,
    readonly source: string,
  ) {
    this.sha = createHash("sha1").update(source).digest("hex");
  }

  async run(keys: readonly string[], args: ReadonlyArray<string | number>): Promise<unknown> {
    try {
      return await this.redis.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!String(error).includes("NOSCRIPT")) throw error;
      return this.redis.eval(this.source, keys.length, ...keys, ...args);
    }
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
    message.startsWith("Stream isn't writeable") ||
    /^(LOADING|CLUSTERDOWN|TRYAGAIN|MASTERDOWN|READONLY)\b/.test(message) ||
    ["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT"].includes(
      String((error as { code?: unknown }).code),
    )
  );
}
