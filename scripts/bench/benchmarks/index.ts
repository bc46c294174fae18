/**
 * Every benchmark `bun run bench` knows, in the order it runs them and BENCHMARKS.md shows
 * them. A new one is a module exporting a Benchmark (`{ name, needs?, run(size) }`, see
 * section.ts) and one line here.
 */

import type { Benchmark } from "../section.ts";
import { binary } from "./binary.ts";
import { chat } from "./chat.ts";
import { chatCluster } from "./chat-cluster.ts";
import { discover } from "./discover.ts";
import { discoverPg } from "./discover-pg.ts";
import { frontend } from "./frontend.ts";
import { match } from "./match.ts";
import { matchCluster } from "./match-cluster.ts";
import { memory } from "./memory.ts";
import { scaleOut } from "./scale-out.ts";
import { write } from "./write.ts";

export const BENCHMARKS: readonly Benchmark[] = [
  discover,
  discoverPg,
  write,
  chat,
  match,
  memory,
  frontend,
  binary,
  matchCluster,
  chatCluster,
  scaleOut,
];
