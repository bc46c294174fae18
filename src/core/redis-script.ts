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
