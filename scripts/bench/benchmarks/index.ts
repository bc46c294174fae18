/**
 * Every benchmark `bun run bench` knows, in the order it runs them and BENCHMARKS.md shows
 * them. A new one is a module exporting a Benchmark (`{ name, needs?, run(size) }`, see
 * section.ts) and one line here; `needs: ["cluster"]` puts it in the PostgreSQL and Redis smoke
 * run (CLUSTER=1 ./scripts/test) instead of the one on SQLite.
 */

import type { Benchmark } from "../section.ts";

export const BENCHMARKS: readonly Benchmark[] = [
  (await import("./discover.ts")).discover,
  (await import("./discover-pg.ts")).discoverPg,
  (await import("./write.ts")).write,
  (await import("./pow.ts")).pow,
  (await import("./chat.ts")).chat,
  (await import("./match.ts")).match,
  (await import("./match-rule.ts")).matchRule,
  (await import("./memory.ts")).memory,
  (await import("./frontend.ts")).frontend,
  (await import("./lighthouse.ts")).lighthouse,
  (await import("./binary.ts")).binary,
  (await import("./match-cluster.ts")).matchCluster,
  (await import("./chat-cluster.ts")).chatCluster,
  (await import("./redis-costs.ts")).redisCosts,
  (await import("./scale-out.ts")).scaleOut,
];
