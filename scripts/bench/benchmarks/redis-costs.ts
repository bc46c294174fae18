/**
 * What the chat costs Redis per operation (cluster/costs.ts): two instances on one Redis, and
 * again on a 3-primary Redis Cluster, against one PUBLISH relayed by the same Redis in the same
 * run. "Executed" counts the commands run inside scripts (INFO commandstats); "round trips" the
 * commands the instances sent (MONITOR); Redis CPU is INFO cpu's main thread, summed over nodes.
 */

import { type CostResult, measureCosts } from "../cluster/costs.ts";
import { log, problem } from "../lib.ts";
import { type Benchmark, fmt, type Row, type Section, type Size, yes } from "../section.ts";

const one = (n: number) => fmt(n, 1);
/** Redis CPU beyond the background: under a microsecond is within the background's own noise. */
const cpu = (n: number) => (n < 1 ? "< 1" : one(n));
const two = (n: number) => fmt(n, 2);

/**
 * The instances' timers (heartbeats every 2 s, sweeps every 1 s, the sweep's lease) go on while
 * an operation is counted; what they send and what Redis executes for them are taken off at the
 * rate measured just before, which leaves a few hundredths of a command per operation either way.
 * A goal on commands or round trips is met within that much.
 */
const TIMERS_NOISE = 0.05;
const within = (value: number, most: number) => value <= most + TIMERS_NOISE;

function rowsOf(r: CostResult, where: string): Row[] {
  const raw = r.rawPublishRelay;
  const kept = r.rawKeptRelay;
  const rawCells = `${two(raw.executed)} / 1 / ${one(raw.redisCpuUs)} (one PUBLISH, one Redis)`;
  return [
    {
      benchmark: `Redis cost of a relayed message, partners on two instances, ${where}: executed commands / round trips / Redis CPU (µs)`,
      ours: `${two(r.message.executed)} / ${two(r.message.sentByInstances)} / ${one(r.message.redisCpuUs)}`,
      baseline: `${two(kept.executed)} / 2 / ${one(kept.redisCpuUs)} (the same event kept and published: XADD and PUBLISH sent bare, one Redis)`,
      ratio: (r.message.redisCpuUs / kept.redisCpuUs).toFixed(1),
      goal: "≤ 4 / ≤ 2 / ≤ 20 µs",
      met: yes(
        within(r.message.executed, 4) &&
          within(r.message.sentByInstances, 2) &&
          r.message.redisCpuUs <= 20,
      ),
    },
    {
      benchmark: `Redis cost of a relayed message on a busy Redis (the instances' messages as they went to Redis, sent again back to back), ${where}: Redis CPU (µs)`,
      ours: one(r.messageBusy.redisCpuUs),
      baseline: `${one(kept.redisCpuUs)} (the same event kept and published, sent the same way)`,
      ratio: (r.messageBusy.redisCpuUs / kept.redisCpuUs).toFixed(1),
      goal: "≤ 20 µs",
      met: yes(r.messageBusy.redisCpuUs <= 20),
    },
    {
      benchmark: `Redis cost of a typing call, ${where}: executed commands / round trips / Redis CPU (µs)`,
      ours: `${two(r.typing.executed)} / ${two(r.typing.sentByInstances)} / ${cpu(r.typing.redisCpuUs)}`,
      baseline: rawCells,
      goal: "≤ 2 / 1 / —",
      met: yes(within(r.typing.executed, 2) && within(r.typing.sentByInstances, 1)),
    },
    {
      benchmark: `Redis cost of a typing call on a busy Redis (the instances' typing events as they went to Redis, sent again back to back), ${where}: Redis CPU (µs)`,
      ours: one(r.typingBusy.redisCpuUs),
      baseline: `${one(raw.redisCpuUs)} (one PUBLISH, one Redis)`,
    },
    {
      benchmark: `Redis cost of a chat start per visitor (pairs across two instances), ${where}: executed commands / round trips / Redis CPU (µs)`,
      ours: `${two(r.startPerVisitor.executed)} / ${two(r.startPerVisitor.sentByInstances)} / ${one(r.startPerVisitor.redisCpuUs)}`,
      goal: "≤ 20 / ≤ 3 / —",
      met: yes(
        within(r.startPerVisitor.executed, 20) && within(r.startPerVisitor.sentByInstances, 3),
      ),
    },
    {
      benchmark: `Redis cost of a chat start per visitor on a busy Redis (${fmt(r.startBusy.operations)} visitors pressing at once on two instances${r.startBusy.bursts.length > 1 ? `, the median of ${r.startBusy.bursts.length} such bursts` : ""}), ${where}: executed commands / Redis CPU (µs)`,
      ours: `${two(r.startBusy.executed)} / ${one(r.startBusy.redisCpuUs)}`,
      goal: "≤ 20 / —",
      met: yes(within(r.startBusy.executed, 20)),
    },
    {
      benchmark: `Redis cost of presence, ${fmt(r.presence.visitors)} idle visitors on two instances, ${where}: commands / Redis CPU (µs) per visitor a second`,
      ours: `${fmt(r.presence.commandsPerVisitorSecond, 4)} / ${fmt(r.presence.redisCpuUsPerVisitorSecond, 3)}`,
      goal: "≤ 0.05 commands",
      met: yes(r.presence.commandsPerVisitorSecond <= 0.05),
    },
    {
      benchmark: `Redis CPU a second, idle, ${where}: Redis on its own / added by each instance (heartbeats, sweeps) / added by each connected visitor (µs)`,
      ours: `${fmt(r.presence.redisOwnCpuUsPerSecond)} / ${fmt(r.presence.instanceRedisCpuUsPerSecond)} / ${fmt(r.presence.addedRedisCpuUsPerVisitorSecond, 3)}`,
    },
    {
      benchmark: `Redis commands over 1 ms after the warm-up (SLOWLOG), ${where}${r.redisAtRealTimePriority ? ", Redis at real-time priority" : ""}`,
      ours: `${fmt(r.slowlogOver1ms.count)}${r.slowlogOver1ms.slowest[0] ? ` (slowest ${fmt(r.slowlogOver1ms.slowest[0].micros)} µs)` : ""}`,
      baseline: `${fmt(r.witnessSlowlogOver1ms.count)} of ${fmt(r.witnessSlowlogOver1ms.commands)} scripts of ${fmt(r.witnessSlowlogOver1ms.microsPerCommand)} µs${r.witnessSlowlogOver1ms.slowest[0] ? ` (slowest ${fmt(r.witnessSlowlogOver1ms.slowest[0].micros)} µs)` : ""} (a witness Redis on the same cores)`,
      goal: "none",
      met: yes(r.slowlogOver1ms.count === 0),
    },
  ];
}

const commands = (byCommand: Record<string, number>) =>
  Object.entries(byCommand)
    .map(([name, n]) => `${name.toUpperCase()} ${n}`)
    .join(", ");

/** Redis's own µs by command; a script's include the commands it runs, so its own is the rest. */
const micros = (usec: Record<string, number>) =>
  Object.entries(usec)
    .filter(([, us]) => us >= 0.5)
    .map(([name, us]) => `${name.toUpperCase()} ${one(us)}`)
    .join(", ");

/** The slow log's entries by what ran, each with its slowest. */
const slowOnes = (r: CostResult) =>
  r.slowlogOver1ms.byWhat.length === 0
    ? "nothing"
    : r.slowlogOver1ms.byWhat
        .map(
          ({ what, count, slowestMicros }) => `${what} ${count} (up to ${fmt(slowestMicros)} µs)`,
        )
        .join(", ");

function notesOf(r: CostResult, where: string): string[] {
  return [
    `${where}, what the slow log kept over 1 ms, by what ran: ${slowOnes(r)}.`,
    `${where}, the microseconds Redis counted in each command (INFO commandstats; a script's count includes the commands it runs): per message ${micros(r.message.usecByCommand)}; per visitor starting ${micros(r.startPerVisitor.usecByCommand)}. A start on a busy Redis, each burst: ${r.startBusy.bursts.map(one).join(", ")} µs a visitor.`,
    `${where}: ${r.setup}; per message ${commands(r.message.byCommand)} (sent by the instances: ${commands(r.message.sentByCommand)}); per typing call ${commands(r.typing.byCommand)}; per visitor starting ${commands(r.startPerVisitor.byCommand)} (sent by the instances: ${commands(r.startPerVisitor.sentByCommand)}); presence over ${r.presence.seconds} s: ${commands(r.presence.byCommand)} in all. Per visitor connecting (their chat stream opened): ${two(r.connect.executed)} commands, ${one(r.connect.redisCpuUs)} µs; leaving (the stream closed and, past the grace period, let go by the sweep): ${two(r.leave.executed)} commands, ${one(r.leave.redisCpuUs)} µs; per chat ended by one side: ${two(r.end.executed)} commands, ${one(r.end.redisCpuUs)} µs. The run took ${r.seconds} s.`,
  ];
}

async function run(size: Size): Promise<Section> {
  log("redis-costs: one Redis");
  const single = await measureCosts(size);
  const rows = rowsOf(single, "one Redis");
  const notes = [
    `Each figure is beyond the background measured just before with the same visitors connected (each instance's heartbeat and sweep), per operation; the round trips are counted in a separate window (MONITOR costs Redis CPU), and the instances' timers (heartbeats every 2 s, sweeps every 1 s, the sweep's lease) are taken off at the rate measured just before, as is what Redis executed for them, which leaves a few hundredths of a command per operation either way: a goal on commands or round trips is met within ${TIMERS_NOISE} of it, and the notes below split what the instances sent by command. A warm-up chat runs first, so that every script is known to Redis before anything is counted.`,
    'The messages are sentences ("Nice to meet you, this is message 3"), as visitors write them: a text of 10 characters or more goes through the rules that remember repeated texts, which the shortest greetings skip (until this row measured sentences, it measured two-character messages, and a sentence cost one Redis 8 executed commands, 3 round trips and 109.9 µs in a quick run).',
    "A relayed message's baseline is the least a message that is kept for a resume and relayed can cost Redis: the same event (as a partner received it) appended to a stream of its own per pair, trimmed as the site trims (XADD MAXLEN ~ 100), and published to the partner's channel, both sent bare by one auto-pipelined connection, with no script and no checks. The typing call's is one PUBLISH of a short text.",
    `On one Redis a message is one transaction (MULTI, XADD, PUBLISH, EXEC), a turn's transactions in one pipeline, and the send script runs only when the append finds no stream under the name it has while nobody in the chat is muted; a transaction is one round trip (written at once, answered at once). Beside the bare baseline, in the same rounds, the same two commands in such a transaction, sent as the site sends them but with nothing of its own: ${one(single.rawKeptInTransaction.redisCpuUs)} µs, ${two(single.rawKeptInTransaction.executed)} executed commands (bare: ${one(single.rawKeptRelay.redisCpuUs)}; the site's message on a busy Redis: ${one(single.messageBusy.redisCpuUs)}). On a Redis Cluster a message is the send script on its chat's slot.`,
    "A message costs Redis more on a Redis that is mostly idle, as these runs' is, than on a busy one: each message then arrives alone or with few others, and Redis wakes for it with its caches cold (a probe of the send script alone on an idle Redis: 15–23 µs of CPU a call when 200 came at once, 110 µs when they came a millisecond apart). The first message row is the site's load as it comes, a few sentences a second a visitor; the baseline beside it is sent in rounds of every pair at once. The busy row sends the site's own messages again (the last rounds' transactions, or on a Cluster send scripts, as MONITOR saw them, to the node each went to, each under a message id of its own), in the rounds the baseline is sent in; each is relayed to the partner's instance like any other message. A plan for a Redis at full use would take the busy figure.",
    "The busy rows for typing and starts are measured as the busy message row is: the typing events the instances published (as MONITOR saw them) sent again in rounds of every visitor's at once, and as many visitors as the start row's pressing start all at once, half on each instance, so that Redis takes their scripts back to back (three such bursts of fresh visitors, one after another; the median stands for them, as one burst swings with the machine). The idle row splits what Redis spends a second with nothing to do: first Redis with nothing connected, then with the two instances started (their heartbeats every 2 s and sweeps every 1 s), then with the idle visitors connected; a figure under the windows' noise reads as nothing.",
    "The slow log keeps wall time: a command is logged when Redis was kept off the CPU in its middle, too. Beside it, a witness Redis on the same cores, started when the warm-up chats have ended (the site's slow log is read from then too: the scripts' first runs, which compile them, are behind, as on a site that has run a while) and stopped with the run, runs a script of about a hundred microseconds of work (as long as the site's scripts take on average) every millisecond; what its slow log keeps over 1 ms is what the machine alone puts there. Redis logs a command run inside a script too, with the script's own entry. The benchmark's own readings (INFO, SLOWLOG, CONFIG, MONITOR) are left out of both.",
    single.redisAtRealTimePriority
      ? "Redis, and the witness beside it, ran at real-time priority (SCHED_FIFO 10; the slow log rows say so for each run): the instances, PostgreSQL and the load generator share these two cores with it, and at normal priority they take its core in the middle of a command, which the slow log then counts; a Redis on a host of its own is not interrupted so. Its CPU figures are what Redis counted either way."
      : "Redis ran at normal priority (the system did not allow real-time priority): the instances, PostgreSQL and the load generator share these two cores with it and take its core in the middle of commands, which the slow log then counts.",
    ...notesOf(single, "One Redis"),
  ];
  if (size !== "smoke") {
    log("redis-costs: a 3-primary Redis Cluster");
    const cluster = await measureCosts(size, true);
    rows.push(...rowsOf(cluster, "3-primary Redis Cluster"));
    notes.push(...notesOf(cluster, "Redis Cluster"));
  }
  if (single.message.operations === 0) problem("no message was relayed");
  return {
    title: "What the chat costs Redis (two instances)",
    rows,
    notes,
    figures: {
      messageExecuted: single.message.executed,
      messageRedisUs: single.message.redisCpuUs,
      messageBusyRedisUs: single.messageBusy.redisCpuUs,
      typingExecuted: single.typing.executed,
      typingRedisUs: single.typing.redisCpuUs,
      typingBusyRedisUs: single.typingBusy.redisCpuUs,
      startExecuted: single.startPerVisitor.executed,
      startRedisUs: single.startPerVisitor.redisCpuUs,
      startBusyRedisUs: single.startBusy.redisCpuUs,
      presenceCommands: single.presence.commandsPerVisitorSecond,
      presenceRedisUs: single.presence.redisCpuUsPerVisitorSecond,
      redisOwnUsPerSecond: single.presence.redisOwnCpuUsPerSecond,
      instanceRedisUsPerSecond: single.presence.instanceRedisCpuUsPerSecond,
      visitorRedisUsPerSecond: single.presence.addedRedisCpuUsPerVisitorSecond,
      connectExecuted: single.connect.executed,
      connectRedisUs: single.connect.redisCpuUs,
      leaveExecuted: single.leave.executed,
      leaveRedisUs: single.leave.redisCpuUs,
      endExecuted: single.end.executed,
      endRedisUs: single.end.redisCpuUs,
      keptRelayRedisUs: single.rawKeptRelay.redisCpuUs,
      keptTransactionRedisUs: single.rawKeptInTransaction.redisCpuUs,
    },
  };
}

export const redisCosts: Benchmark = { name: "redis-costs", needs: ["cluster"], run };
