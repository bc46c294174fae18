/**
 * The chat relay on one instance: pairs of visitors sending at an even pace, delivery time to
 * the partner, server CPU per delivered message and the highest rate kept up, against the raw
 * Bun relay and a Socket.IO 4 relay (the same source) under Node and under Bun, in rounds taken
 * in turn on fresh servers.
 */

import type { ChatMode } from "../../../tests/helpers/chat-client.ts";
import {
  appServer,
  type ChatSettings,
  chatSettings,
  freshVisitors,
  inTurn,
  log,
  medianRound,
  NODE_PACKAGES,
  nodeBaselines,
  runChatLoad,
  type ServerChild,
  startNodeServer,
  startServer,
  sustained,
  withServers,
  workFolder,
} from "../lib.ts";
import type { ChatLoadOptions, ChatLoadResult } from "../load-chat.ts";
import {
  type Benchmark,
  fmt,
  median,
  ms,
  notAbove,
  type Row,
  ratioOf,
  type Section,
  type Size,
  yes,
} from "../section.ts";

// Goal for the code on tRPC's public API (issue 11): a ratio to the raw relay's highest rate.
const CHAT_MAX_GOAL = 0.35;
/** Server CPU per delivered message that the chat should stay within (issue 22), µs. */
const CPU_GOAL_US = 30;

/** The servers a chat load runs against: ours, the raw Bun relay, Socket.IO under each runtime. */
type ChatServer = "app" | "raw" | "sio-node" | "sio-bun";

/** How the generator speaks to each: both Socket.IO runtimes run the same relay. */
const CLIENT: Record<ChatServer, ChatMode> = {
  app: "app",
  raw: "raw",
  "sio-node": "sio",
  "sio-bun": "sio",
};
const NAME: Record<ChatServer, string> = {
  app: "ours",
  raw: "raw relay",
  "sio-node": "Socket.IO on Node",
  "sio-bun": "Socket.IO on Bun",
};

/** Kept up by the issue's measure: ≥ 99 % delivered, p99 ≤ 50 ms (and no error, rate sent). */
function keptUp(r: ChatLoadResult): boolean {
  return (
    r.errors === 0 && r.delivered >= 0.99 * r.sent && r.sentRate >= 0.95 * r.offered && r.p99 <= 50
  );
}

/** The chat server for a kind: ours, the raw Bun relay, or the Socket.IO relay. */
function chatServer(kind: ChatServer, name: string): () => Promise<ServerChild> {
  if (kind === "raw") return () => startServer("raw-relay.ts");
  if (kind === "sio-node") return () => startNodeServer("socketio-relay.mjs");
  if (kind === "sio-bun") return () => startServer("node/socketio-relay.mjs");
  return appServer(workFolder(name));
}

/** One chat load against a fresh server of a kind. */
function chatLoad(
  settings: ChatSettings,
  kind: ChatServer,
  pairs: number,
  rate: number,
  durationMs: number,
): Promise<ChatLoadResult> {
  return withServers([chatServer(kind, `chat-${kind}-${pairs}-${rate}`)], ([server]) => {
    if (!server) throw new Error("server missing");
    const options: ChatLoadOptions = {
      url: server.url,
      mode: CLIENT[kind],
      pairs,
      rate,
      warmupMs: settings.warmupMs,
      durationMs,
      serverPid: server.pid,
      firstVisitor: freshVisitors(),
    };
    return runChatLoad(`chat, ${NAME[kind]}, ${pairs} pairs at ${rate}/s`, options);
  });
}

/** Server CPU per message sent, in µs. */
const perMessage = (r: ChatLoadResult) => fmt(((r.serverCpu ?? 0) / r.sentRate) * 1e6);
/** Server CPU per message delivered to the partner within the window, in µs. */
const perDelivered = (r: ChatLoadResult) =>
  r.serverCpu === null || r.arrivedRate <= 0 ? Number.NaN : (r.serverCpu / r.arrivedRate) * 1e6;

interface Climb {
  /** The highest step kept up (every message delivered, p99 ≤ 100 ms). */
  best: number;
  /** The highest step kept up by the issue's measure (≥ 99 % delivered, p99 ≤ 50 ms). */
  bestIssue: number;
  tried: string[];
}

/**
 * Climbs the steps until neither measure keeps up. A step that falls behind is tried once
 * more (full runs) before the climb stops: on a shared machine one burst of other work can
 * stall a step that the server keeps up with; a measure counts a step kept up at either try.
 */
async function highestRate(
  size: Size,
  settings: ChatSettings,
  kind: ChatServer,
  steps: number[],
  durationMs: number,
): Promise<Climb> {
  let best = 0;
  let bestIssue = 0;
  let climbing = true;
  let climbingIssue = true;
  const tried: string[] = [];
  for (const rate of steps) {
    // Five messages a second per visitor, the flood limit's steady rate; beyond 4,000 pairs
    // (8,000 sockets) the raw relay, which has no gate, gets more per visitor instead.
    const pairs = Math.min(4000, Math.ceil(rate / 10));
    let r = await chatLoad(settings, kind, pairs, rate, durationMs);
    let ok = sustained(r);
    let okIssue = keptUp(r);
    let retried = false;
    if (((climbing && !ok) || (climbingIssue && !okIssue)) && size === "full") {
      retried = true;
      r = await chatLoad(settings, kind, pairs, rate, 2000);
      ok ||= sustained(r);
      okIssue ||= keptUp(r);
    }
    const verdict = (kept: boolean) => (kept ? "kept up" : "fell behind");
    tried.push(
      `${fmt(rate)}/s with ${fmt(pairs)} pairs: ${verdict(ok)}, by the 99 % / 50 ms measure ${verdict(okIssue)}${retried ? " (tried twice; the second try's figures)" : ""} (sent ${fmt(r.sentRate)}/s${r.skipped > 0 ? ` (${fmt(r.skipped)} skipped by a late generator)` : ""}, p99 ${r.p99} ms, lost ${r.lost}, errors ${r.errors}, server CPU ${r.serverCpu}, ≈ ${perMessage(r)} µs per message, generator CPU ${r.clientCpu})`,
    );
    log(`  ${NAME[kind]} ${tried[tried.length - 1]}`);
    climbing &&= ok;
    climbingIssue &&= okIssue;
    if (climbing) best = rate;
    if (climbingIssue) bestIssue = rate;
    if (!climbing && !climbingIssue) break;
  }
  return { best, bestIssue, tried };
}

/** The sizes of each part of the chat benchmark. */
function plan(size: Size) {
  if (size === "smoke") {
    // A few pairs at a low rate, all four servers, one step of the climb each.
    return {
      latency: [[10, 100, 10]] as Array<readonly [number, number, number | undefined]>,
      appSteps: [100],
      rawSteps: [100],
      climbMs: 1000,
    };
  }
  return {
    latency: [
      [100, 1000, undefined],
      [1000, 10_000, 10],
    ] as Array<readonly [number, number, number | undefined]>,
    // From below the issue's 10,000, so a server that falls behind there still gets a figure.
    appSteps:
      size === "quick"
        ? [5_000, 10_000, 15_000, 20_000]
        : [2_500, 5_000, 7_500, 10_000, 12_500, 15_000, 17_500, 20_000, 25_000, 30_000, 40_000],
    rawSteps:
      size === "quick"
        ? [10_000, 20_000, 40_000]
        : [10_000, 20_000, 30_000, 40_000, 50_000, 60_000, 80_000],
    climbMs: size === "quick" ? 1500 : 2000,
  };
}

async function run(size: Size): Promise<Section> {
  const CHAT = chatSettings(size);
  const { latency, appSteps, rawSteps, climbMs } = plan(size);
  const rows: Row[] = [];
  const notes: string[] = [];
  const node = nodeBaselines();
  const withSio = !(node instanceof Error);
  const summaryOf = (name: string, r: ChatLoadResult) =>
    `${name} sent ${fmt(r.sentRate)}/s${r.skipped > 0 ? ` (${fmt(r.skipped)} skipped by a late generator)` : ""}, delivered ${fmt(r.delivered)} of ${fmt(r.sent)}, ${r.errors} errors, p50 / p99 / max ${r.p50} / ${r.p99} / ${r.max} ms, server CPU ${r.serverCpu} cores (≈ ${perMessage(r)} µs per message), generator CPU ${r.clientCpu}${r.firstError ? ` (first error: ${r.firstError.slice(0, 160)})` : ""}`;
  /** Server CPU per delivered message at the goal's load: the median of the rounds. */
  let cpuAtGoal: Partial<Record<ChatServer, number>> = {};
  let goalLoad = "";
  for (const [pairs, rate, goal] of latency) {
    // Rounds in turn (raw, Socket.IO on Node and on Bun, ours), each on fresh servers; the
    // round with the median p99 stands for each server, so that one burst of other work on the
    // machine moves no row.
    const kinds: ChatServer[] =
      goal !== undefined && withSio ? ["raw", "sio-node", "sio-bun", "app"] : ["raw", "app"];
    const rounds: Partial<Record<ChatServer, ChatLoadResult[]>> = await inTurn(
      CHAT.rounds,
      kinds,
      (kind) => chatLoad(CHAT, kind, pairs, rate, CHAT.durationMs),
    );
    const standing = (kind: ChatServer) => {
      const results = rounds[kind];
      return results && results.length > 0 ? medianRound(results) : undefined;
    };
    const theirs = standing("raw");
    const ours = standing("app");
    const sioNode = standing("sio-node");
    const sioBun = standing("sio-bun");
    if (!theirs || !ours) throw new Error("chat rounds missing");
    const everyRound = (kind: ChatServer) => (rounds[kind] ?? []).every((r) => sustained(r));
    const p99s = (kind: ChatServer) => (rounds[kind] ?? []).map((r) => r.p99).join(", ");
    const sios = [
      ["sio-node", sioNode],
      ["sio-bun", sioBun],
    ] as const;
    log(
      `chat ${pairs} pairs at ${rate}/s: ours p99 ${p99s("app")} ms, raw p99 ${p99s("raw")} ms${sios
        .filter(([, r]) => r)
        .map(([kind]) => `, ${NAME[kind]} p99 ${p99s(kind)} ms`)
        .join("")}`,
    );
    const load = `${fmt(pairs)} pairs at ${fmt(rate)} msg/s`;
    rows.push({
      benchmark: `Chat relay, ${load}: delivery p50 / p99 ms`,
      ours: `${ms(ours.p50)} / ${ms(ours.p99)}`,
      baseline: `${ms(theirs.p50)} / ${ms(theirs.p99)} (raw relay)`,
      ratio: ratioOf(ours.p99, theirs.p99).toFixed(1),
      goal: goal === undefined ? "—" : `p99 ≤ ${goal} ms`,
      met: goal === undefined ? "—" : yes(ours.p99 <= goal && everyRound("app")),
    });
    for (const [kind, sio] of sios) {
      if (!sio) continue;
      rows.push({
        benchmark: `Chat relay, ${load}, Socket.IO 4 relay (${kind === "sio-node" ? "Node" : "Bun"}): delivery p50 / p99 ms`,
        ours: `${ms(ours.p50)} / ${ms(ours.p99)}`,
        baseline: `${ms(sio.p50)} / ${ms(sio.p99)} (Socket.IO)`,
        ratio: ratioOf(ours.p99, sio.p99).toFixed(1),
        goal: "p99 ≤ its p99",
        met: yes(ours.p99 <= sio.p99 && everyRound("app")),
      });
    }
    notes.push(
      `${fmt(pairs)} pairs at ${fmt(rate)}/s, the median of ${CHAT.rounds} round${CHAT.rounds > 1 ? "s" : ""} (p99 of each: ours ${p99s("app")}; raw ${p99s("raw")}${sios
        .filter(([, r]) => r)
        .map(([kind]) => `; ${NAME[kind]} ${p99s(kind)}`)
        .join(
          "",
        )} ms): ${summaryOf("ours", ours)}; ${summaryOf("raw relay", theirs)}${sios.map(([kind, r]) => (r ? `; ${summaryOf(NAME[kind], r)}` : "")).join("")}.`,
    );
    if (goal !== undefined) {
      goalLoad = load;
      cpuAtGoal = Object.fromEntries(
        kinds.map((kind) => [kind, median((rounds[kind] ?? []).map(perDelivered))]),
      );
    }
  }
  // Server CPU per message delivered at the goal's load (the issue's second measure).
  const ourCpu = cpuAtGoal.app ?? Number.NaN;
  const rawCpu = cpuAtGoal.raw ?? Number.NaN;
  rows.push({
    benchmark: `Chat relay, ${goalLoad}: server CPU per delivered message (µs)`,
    ours: fmt(ourCpu, 1),
    baseline: `${fmt(rawCpu, 1)} (raw relay)`,
    ratio: ratioOf(ourCpu, rawCpu).toFixed(1),
    goal: `≤ ${CPU_GOAL_US} µs`,
    met: yes(ourCpu <= CPU_GOAL_US),
  });
  for (const kind of ["sio-node", "sio-bun"] as const) {
    const theirs = cpuAtGoal[kind];
    if (theirs === undefined) continue;
    rows.push({
      benchmark: `Chat relay, ${goalLoad}, Socket.IO 4 relay (${kind === "sio-node" ? "Node" : "Bun"}): server CPU per delivered message (µs)`,
      ours: fmt(ourCpu, 1),
      baseline: `${fmt(theirs, 1)} (Socket.IO)`,
      ratio: ratioOf(ourCpu, theirs).toFixed(1),
      goal: "≤ its",
      met: yes(ourCpu <= theirs),
    });
  }
  const ours = await highestRate(size, CHAT, "app", appSteps, climbMs);
  const theirs = await highestRate(size, CHAT, "raw", rawSteps, climbMs);
  // Socket.IO climbs the same steps as ours, with the same number of visitors at each.
  const sioNode = withSio
    ? await highestRate(size, CHAT, "sio-node", appSteps, climbMs)
    : undefined;
  const sioBun = withSio ? await highestRate(size, CHAT, "sio-bun", appSteps, climbMs) : undefined;
  const ratio = ratioOf(ours.best, theirs.best);
  rows.push({
    benchmark: "Chat relay: highest rate kept up (msg/s, 5 msg/s per visitor)",
    ours: fmt(ours.best),
    baseline: `${fmt(theirs.best)} (raw relay)`,
    ratio: notAbove(ratio),
    goal: `≥ ${CHAT_MAX_GOAL}`,
    met: yes(ratio >= CHAT_MAX_GOAL),
  });
  if (sioNode) {
    const vsSio = ratioOf(ours.best, sioNode.best);
    rows.push({
      benchmark: "Chat relay: highest rate kept up, Socket.IO 4 relay (Node) (msg/s)",
      ours: fmt(ours.best),
      baseline: `${fmt(sioNode.best)} (Socket.IO)`,
      ratio: notAbove(vsSio),
      goal: "≥ its rate",
      met: yes(vsSio >= 1),
    });
  }
  const ISSUE_RATE = "highest rate with ≥ 99 % delivered and p99 ≤ 50 ms";
  rows.push({
    benchmark: `Chat relay: ${ISSUE_RATE} (msg/s)`,
    ours: fmt(ours.bestIssue),
    baseline: `${fmt(theirs.bestIssue)} (raw relay)`,
    ratio: notAbove(ratioOf(ours.bestIssue, theirs.bestIssue)),
    goal: "—",
    met: "—",
  });
  for (const [runtime, sio] of [
    ["Node", sioNode],
    ["Bun", sioBun],
  ] as const) {
    if (!sio) continue;
    const vs = ratioOf(ours.bestIssue, sio.bestIssue);
    rows.push({
      benchmark: `Chat relay: ${ISSUE_RATE}, Socket.IO 4 relay (${runtime}) (msg/s)`,
      ours: fmt(ours.bestIssue),
      baseline: `${fmt(sio.bestIssue)} (Socket.IO)`,
      ratio: notAbove(vs),
      goal: "≥ its rate",
      met: yes(vs >= 1),
    });
  }
  notes.push(
    `Server CPU per delivered message: the server's CPU over the measured window divided by the partner copies that arrived within it, the median of the rounds at ${goalLoad}: ${(
      Object.entries(cpuAtGoal) as Array<[ChatServer, number]>
    )
      .map(([kind, us]) => `${NAME[kind]} ${fmt(us, 1)} µs`)
      .join(", ")}.`,
    "Kept up means: every message delivered, no error answer, at least 95% of the offered rate sent, p99 ≤ 100 ms; by the 99 % / 50 ms measure, at least 99 % delivered, no error answer, at least 95% of the offered rate sent, p99 ≤ 50 ms. Each step is measured once for both; the climb stops when both have fallen behind (in a full run, at the second try). A generator more than 50 ms late (its core taken) skips the messages it is late with instead of sending them in one burst, so a starved generator shows as a lower sent rate, not as flood-gate refusals.",
    `Ours: ${ours.tried.join("; ")}.`,
    `Raw relay: ${theirs.tried.join("; ")}.`,
  );
  if (sioNode && sioBun && !(node instanceof Error)) {
    notes.push(
      `Socket.IO on Node: ${sioNode.tried.join("; ")}.`,
      `Socket.IO on Bun: ${sioBun.tried.join("; ")}.`,
      `Socket.IO ${NODE_PACKAGES["socket.io"]} (node/socketio-relay.mjs: WebSocket transport only, its defaults otherwise), one source run under Node ${node.version} and under Bun ${Bun.version}: pairs first come, first served; each message is emitted to the partner and acknowledged to the sender with the server's copy (Socket.IO's ack callback), one frame to each, as ours answers the sender's call and pushes the partner's copy (the events waiting for a visitor go in one frame). The same generator speaks its protocol over a plain WebSocket.`,
    );
  } else {
    notes.push(`No Socket.IO comparison: ${node instanceof Error ? node.message : "not run"}`);
  }
  return { title: "Chat relay", rows, notes };
}

export const chat: Benchmark = { name: "chat", needs: ["socket.io"], run };
