import { Cluster } from "ioredis";
import { execSync } from "node:child_process";
const dir = process.argv[2];
const urls = process.argv[3].split(",").map((u) => new URL(u));
const nodes = urls.map((u) => ({ host: u.hostname, port: Number(u.port) }));
const retryStrategy = (t) => Math.min(100 * t, 1000);
const whileAway = { maxRetriesPerRequest: 1, connectTimeout: 2000, retryStrategy };
const sub = new Cluster(nodes, { lazyConnect: true, shardedSubscribers: true, clusterRetryStrategy: retryStrategy, redisOptions: whileAway });
const pub = new Cluster(nodes, { lazyConnect: true, enableAutoPipelining: true, clusterRetryStrategy: retryStrategy, redisOptions: whileAway });
sub.on("error", () => {}); pub.on("error", () => {});
sub.on("ready", () => console.log("sub ready", Date.now() % 100000));
await Promise.all([sub.connect(), pub.connect()]);
const chans = ["{pool}:life:x", "{pool}:life:y", ...Array.from({ length: 20 }, (_, i) => `{c${i}}:a`)];
for (const c of chans) await sub.ssubscribe(c);
await sub.subscribe("classic");
const count = async () => { let n = 0; for (const c of chans) { const r = await pub.call("PUBSUB", "SHARDNUMSUB", c).catch(() => [0, 0]); n += Number(r[1]); } return n; };
console.log("before", await count());
execSync(`/work/main/scripts/cluster kill-redis-cluster ${dir}`);
console.log("killed", Date.now() % 100000);
await new Promise((r) => setTimeout(r, 3000));
execSync(`/work/main/scripts/cluster restart-redis-cluster ${dir}`);
console.log("restarted", Date.now() % 100000);
for (let i = 0; i < 20; i++) {
  await new Promise((r) => setTimeout(r, 1000));
  let again = "";
  if (i === 12) again = await sub.ssubscribe("{pool}:life:x").then(() => "resub ok", (e) => "resub " + e.message);
  console.log(i, "subscribed", await count(), again, sub.status);
}
process.exit(0);
