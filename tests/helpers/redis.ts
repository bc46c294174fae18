import { RedisBus } from "../../src/core/redis-bus.ts";
import type { RedisClient } from "../../src/core/redis-script.ts";
import { connectRedis } from "../../src/server/shared-state.ts";
import { clusterServers } from "./cluster-servers.ts";

/**
 * The Redis the cluster suites run against (`CLUSTER=1 ./scripts/test` names it in
 * TEST_REDIS_URL): one server, or the nodes of a Redis Cluster, comma-separated. Connections are
 * made as the site makes them, and shared by the tests of a file (each test uses a key prefix
 * of its own).
 */
export function redisConnections() {
  // Without it the suites are skipped (tests/helpers/cluster-servers.ts says how to run them).
  const url = clusterServers?.redisUrl ?? "redis://127.0.0.1:6379";
  const urls = url.split(",").map((u) => u.trim());
  const target = { url: urls[0] as string, urls, cluster: clusterServers?.redisCluster ?? false };
  const made: RedisClient[] = [];
  let shared: Promise<{ redis: RedisClient; subscriber: RedisClient; bus: RedisBus }> | undefined;
  const connect = async (onError?: (what: string, error: unknown) => void) => {
    const redis = connectRedis(target, { pipelined: true, subscriber: false });
    const subscriber = connectRedis(target, { pipelined: false, subscriber: true });
    made.push(redis, subscriber);
    await Promise.all([redis.connect(), subscriber.connect()]);
    return { redis, subscriber, bus: new RedisBus(subscriber, onError) };
  };
  return {
    label: target.cluster ? "a Redis Cluster" : "Redis",
    cluster: target.cluster,
    url,
    /** The file's shared connections. */
    open() {
      shared ??= connect((what, error) => console.error(what, error));
      return shared;
    },
    /** Connections of their own, as a second instance has (`onError` hears what the bus drops). */
    separate: connect,
    /** Deletes every key under `prefix`, on every primary: as a Redis restarted empty is. */
    async forget(prefix: string) {
      const { redis } = await this.open();
      const nodes = "nodes" in redis ? redis.nodes("master") : [redis];
      for (const node of nodes) {
        let cursor = "0";
        do {
          const [next, keys] = await node.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 500);
          // One key a command: on a Cluster, keys of several slots cannot go in one.
          await Promise.all(keys.map((key) => node.del(key)));
          cursor = next;
        } while (cursor !== "0");
      }
    },
    close() {
      for (const client of made) client.disconnect();
    },
  };
}
