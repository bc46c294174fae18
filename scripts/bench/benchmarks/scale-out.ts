/**
 * Two instances against one on PostgreSQL + Redis (scripts/cluster), on this machine's cores:
 * discover and throw, the generator's connections split over the instances; what a request
 * costs the instances, PostgreSQL and Redis, and what a throw writes. Then the chat: what a
 * message costs one instance and two at the same load per instance, which says what two carry
 * against one where each has a core.
 */

import {
  type ClusterSite,
  chatOn,
  commandList,
  instancesOf,
  medianCost,
  openSite,
  perOperation,
  writtenPer,
} from "../cluster-site.ts";
import {
  chatSettings,
  httpLoad,
  httpSettings,
  inTurn,
  log,
  roundsOf,
  runHttpLoad,
  runLoad,
  summarizeHttp,
  sustained,
  throwPool,
  withServers,
} from "../lib.ts";
import type { ChatLoadResult } from "../load-chat.ts";
import type { HttpLoadResult } from "../load-http.ts";
import type { ScaleFigures } from "../plan.ts";
import { type WriteMark, writeMark, writesSince } from "../postgres.ts";
import {
  type Benchmark,
  fmt,
  median,
  ms,
  type Row,
  ratioOf,
  type Section,
  type Size,
  yes,
} from "../section.ts";

type Layout = "one" | "two";

/**
 * The messages a second one instance carries in the chat's two-against-one rounds; two carry
 * twice as many, so each instance has the same load. Two such instances, Redis and the load
 * generator fit in this machine's two cores with room to spare.
 */
const CHAT_RATE_PER_INSTANCE = { full: 2500, quick: 1000, smoke: 100 } as const;
/** The goal: two instances carry this many times what one carries, given a core each. */
const CHAT_SCALING_GOAL = 1.7;

/**
 * One chat load over fresh instances of the site: on one, every pair on it; on two, every pair
 * across them (each message goes from one instance through Redis to the other).
 */
function chatRound(site: ClusterSite, size: Size, layout: Layout): Promise<ChatLoadResult> {
  const count = layout === "one" ? 1 : 2;
  const rate = CHAT_RATE_PER_INSTANCE[size] * count;
  return withServers(instancesOf(site, count, `chat-${layout}`).starts, (servers) =>
    // 2.5 messages a second per visitor, inside the flood limit.
    chatOn(site, servers, `chat on ${layout} instance(s) at ${rate}/s`, chatSettings(size), {
      mode: "app",
      pairs: Math.round(rate / 5),
      rate,
    }),
  );
}

/** What a message relayed in the window cost (the instances together), beyond the quiet. */
const chatCost = (r: ChatLoadResult) =>
  perOperation(r.probe, r.idle, r.probe?.redis?.byCommand.xadd ?? r.arrived);
const chatUs = (r: ChatLoadResult) => chatCost(r).serverUs;

/**
 * Requests/s of two instances against one, on this machine's two cores: discover and throw on
 * PostgreSQL + Redis, the load generator's connections split over the instances (connection i
 * to instance i mod n) as a round-robin balancer would, without a balancer's own process.
 */
async function run(size: Size): Promise<Section> {
  const HTTP = httpSettings(size);
  const site = await openSite("scale_out", 10_000);
  const results: Record<"discover" | "throw", Record<Layout, HttpLoadResult[]>> = {
    discover: { one: [], two: [] },
    throw: { one: [], two: [] },
  };
  const writes: Array<{ rows: Record<string, number>; walBytes: number; ops: number }> = [];
  let chat: Record<Layout, ChatLoadResult[]> = { one: [], two: [] };
  try {
    await withServers(instancesOf(site, 2, "scale").starts, async ([a, b]) => {
      for (const kind of ["discover", "throw"] as const) {
        const path = kind === "discover" ? "/trpc/bottles.discover" : "/trpc/bottles.throw";
        for (let round = 0; round < HTTP.rounds; round++) {
          for (const layout of ["one", "two"] as const) {
            const servers = layout === "one" ? [a] : [a, b];
            const options = httpLoad(HTTP, {
              url: a.url,
              urls: servers.map((s) => s.url),
              path,
              kind,
              // Throws on PostgreSQL come at half the SQLite rate or less.
              ...(kind === "throw" ? { agePool: throwPool(HTTP, 4000) } : {}),
              probe: {
                servers: servers.map((s) => s.pid),
                postgres: site.postmaster,
                redisUrl: site.redisUrl,
              },
            });
            let mark: WriteMark | null = null;
            if (kind === "throw" && layout === "one") {
              // The pool answers the age gate before the mark, so that the rows and WAL
              // counted are the throws' alone.
              await runLoad("load-http.ts", { ...options, ageOnly: true });
              options.agePoolAnswered = true;
              mark = await writeMark(site.dbUrl);
            }
            const r = await runHttpLoad(`${kind} on ${layout} instance(s)`, options);
            if (mark) writes.push({ ...(await writesSince(site.dbUrl, mark)), ops: r.answered });
            results[kind][layout].push(r);
          }
        }
        log(
          `  ${kind}: one instance ${roundsOf(results[kind].one)}; two ${roundsOf(results[kind].two)} requests/s`,
        );
      }
    });
    chat = await inTurn(chatSettings(size).rounds, ["one", "two"] as const, async (layout) => {
      const r = await chatRound(site, size, layout);
      log(
        `  chat on ${layout} instance(s): p99 ${r.p99} ms, ${fmt(chatUs(r))} µs of CPU a message, instances ${r.probe?.serverCpuEach.join(" and ")} cores`,
      );
      return r;
    });
  } finally {
    site.stop();
  }
  const rows: Row[] = [];
  const notes: string[] = [];
  const costOf = (list: HttpLoadResult[]) =>
    medianCost(list.map((r) => perOperation(r.probe, undefined, r.rps * (r.probe?.seconds ?? 0))));
  const cores = (list: HttpLoadResult[]) =>
    `instances ${fmt(median(list.map((r) => r.probe?.serverCpu ?? Number.NaN)), 2)}, PostgreSQL ${fmt(median(list.map((r) => r.probe?.postgresCpu ?? Number.NaN)), 2)}, Redis ${fmt(median(list.map((r) => r.probe?.redis?.cpu ?? Number.NaN)), 2)}`;
  for (const kind of ["discover", "throw"] as const) {
    const one = summarizeHttp(results[kind].one);
    const two = summarizeHttp(results[kind].two);
    const name = kind === "discover" ? "Discover (10k bottles)" : "Throw a bottle";
    rows.push({
      benchmark: `${name} on PostgreSQL + Redis, two instances against one on this 2-core machine: requests/s (${HTTP.concurrency} connections split over the instances)`,
      ours: fmt(two.rps),
      baseline: `${fmt(one.rps)} (one instance)`,
      ratio: ratioOf(two.rps, one.rps).toFixed(2),
    });
    const oneCost = costOf(results[kind].one);
    const twoCost = costOf(results[kind].two);
    notes.push(
      `${name}: one instance ${fmt(one.rps)} requests/s (p50 / p99 ${ms(one.p50)} / ${ms(one.p99)} ms), two ${fmt(two.rps)} (${ms(two.p50)} / ${ms(two.p99)} ms); rounds: one ${roundsOf(results[kind].one)}; two ${roundsOf(results[kind].two)}. Cores in use (median round), one instance: ${cores(results[kind].one)}; two: ${cores(results[kind].two)}. Per request, one instance: ${fmt(oneCost.serverUs)} µs of instance CPU, ${fmt(oneCost.postgresUs)} µs of PostgreSQL, ${fmt(oneCost.redisUs, 1)} µs of Redis and ${fmt(oneCost.redisCommands, 1)} Redis commands (${commandList(oneCost.byCommand)}, with the presence and sweep timers' share); two instances: ${fmt(twoCost.serverUs)}, ${fmt(twoCost.postgresUs)} and ${fmt(twoCost.redisUs, 1)} µs.${one.non200 + one.errors + two.non200 + two.errors > 0 ? ` Answers other than 200: ${one.non200 + two.non200}, connection errors ${one.errors + two.errors}.` : ""}`,
    );
  }
  const oneUs = median(chat.one.map(chatUs));
  const twoUs = median(chat.two.map(chatUs));
  // A core carries 1 s of CPU a second: one instance 1e6 / oneUs messages; two instances, each
  // with its core and half of every message's CPU, 2e6 / twoUs.
  const oneCarries = 1e6 / oneUs;
  const twoCarry = 2e6 / twoUs;
  const scaling = twoCarry / oneCarries;
  const allKept =
    chat.one.every(sustained) && chat.two.every((r) => sustained(r) && r.crossPairs === r.pairs);
  const perInstance = CHAT_RATE_PER_INSTANCE[size];
  rows.push({
    benchmark: `Chat relay through Redis where each instance has a core of its own, from the CPU a message costs at the same load per instance (see the notes): messages a second the instances' cores carry, two against one`,
    ours: fmt(twoCarry),
    baseline: `${fmt(oneCarries)} (one instance)`,
    ratio: Number.isFinite(scaling) ? scaling.toFixed(2) : "—",
    goal: `≥ ${CHAT_SCALING_GOAL}×`,
    met: yes(allKept && scaling >= CHAT_SCALING_GOAL),
  });
  const chatRounds = (list: ChatLoadResult[]) =>
    list
      .map(
        (r) =>
          `${fmt(chatUs(r))} µs (p99 ${r.p99} ms, ${fmt(r.delivered)} of ${fmt(r.sent)} delivered, instances ${r.probe?.serverCpuEach.join(" and ")} cores)`,
      )
      .join(", ");
  notes.push(
    `Chat: this machine's two cores cannot give two instances a core each beside Redis, PostgreSQL and the load generator, so the chat's two-against-one is measured as what a message costs the instances at the same load per instance: one instance carrying ${fmt(perInstance)} messages a second with every pair on it, and two carrying ${fmt(2 * perInstance)} with every pair across them (each instance sends ${fmt(perInstance)} and delivers as many), 2.5 messages a second a visitor, ${chat.one.length === 1 ? "once each" : `${chat.one.length} times each, in turn,`} on fresh instances and key prefixes. A message cost ${fmt(oneUs)} µs of CPU on one instance and ${fmt(twoUs)} on two (both together, the median of the rounds, beyond the quiet seconds before them; rounds: one ${chatRounds(chat.one)}; two ${chatRounds(chat.two)}). A core a second carries 1e6 ÷ that: ${fmt(oneCarries)} messages on one instance, ${fmt(twoCarry)} on two instances with a core each. An instance runs its JavaScript on one thread, so its core is what it can use; Redis, at ${fmt(median(chat.two.map((r) => chatCost(r).redisUs)), 1)} µs a message here, is far from full at these rates. ${allKept ? "Every round kept up (every message delivered, p99 ≤ 100 ms)." : "Not every round kept up, so the figure is not taken as met."}`,
  );
  const throwCost = costOf(results.throw.one);
  const throwReused = [...results.throw.one, ...results.throw.two].reduce(
    (sum, r) => sum + (r.agePoolReused ?? 0),
    0,
  );
  const written = writtenPer(writes);
  notes.push(
    `Written per bottle thrown (one instance, every answer of the load counted, warm-up included): ${fmt(written.rows, 2)} rows (${written.tables} for ${fmt(writes[0]?.ops ?? 0)} throws in the first round) and ${fmt(written.walBytes)} bytes of WAL.`,
    `Both layouts run on the same two cores as PostgreSQL, Redis and the load generator, so two instances cannot do twice the work of one here: this row says what a second process gains when the first is not alone on the machine, not how the site scales on more machines (the plan below does that from per-request costs). The instances are started once; "one instance" sends all ${HTTP.concurrency} connections to the first while the second idles (its presence and sweep timers only), "two" sends half to each, in turn ${HTTP.rounds} times. No nginx in between: on two cores its worker would take CPU from the instances it balances; splitting the generator's connections is what round robin does without that cost.`,
    `The database is the discover benchmark's 10k seed copied into a throwaway PostgreSQL 15 (fsync off, on tmpfs); every request is a visitor of its own with an address of its own, so no rate limit is reached. Before each round of throws, ${fmt(throwPool(HTTP, 4000))} visitors answer the bottles' age gate (\`bottles.confirmAge\`, as a browser does before its first throw), outside the measured window and, for the rows and WAL counted, before the mark${throwReused > 0 ? `; ${fmt(throwReused)} throws were a visitor's second (the pool ran out)` : ""}. CPU is that of the instances' processes, of PostgreSQL's postmaster and every backend it forked, and of the Redis process (INFO cpu).`,
  );
  const figures: ScaleFigures = {
    throwServerUs: throwCost.serverUs,
    throwPostgresUs: throwCost.postgresUs,
    throwRedisUs: throwCost.redisUs,
    throwRedisCommands: throwCost.redisCommands,
    throwRows: written.rows,
    throwWalBytes: written.walBytes,
  };
  return {
    title: "Two instances against one (PostgreSQL + Redis)",
    rows,
    notes,
    figures: { ...figures },
  };
}

export const scaleOut: Benchmark = { name: "scale-out", needs: ["cluster"], run };
