import { describe, expect, test } from "bun:test";
import { unescapeMonitor } from "../../scripts/bench/cluster/redis.ts";
import {
  type ChatFigures,
  type CostFigures,
  type MatchFigures,
  PLAN,
  renderPlan,
  type ScaleFigures,
} from "../../scripts/bench/plan.ts";

describe("a command MONITOR printed", () => {
  // A typing event sent again with its tab left as "\t" was a payload no instance could read.
  test("is sent again as it was: tabs, backslashes and UTF-8 bytes restored", () => {
    expect(unescapeMonitor('~\\t{"type":"typing"}')).toBe('~\t{"type":"typing"}');
    expect(unescapeMonitor("a\\\\tb")).toBe("a\\tb");
    expect(unescapeMonitor("\\xe4\\xb8\\xad\\xe6\\x96\\x87 ok\\r\\n")).toBe("中文 ok\r\n");
    expect(unescapeMonitor("plain")).toBe("plain");
  });
});

describe("the plan on paper", () => {
  const match: MatchFigures = {
    startServerUs: 350,
    startRedisUs: 140,
    startRedisCommands: 19,
    startPostgresUs: 15,
    startRows: 2,
    startWalBytes: 650,
  };
  const chat: ChatFigures = {
    messageServerUs: 190,
    messageRedisUs: 24,
    messageRedisCommands: 4,
    rawServerUs: 40,
    rawRedisUs: 7,
    rawRedisCommands: 1,
    idleVisitors: 5000,
    idleRssKiB: 22,
    idleRedisBytes: 300,
    idleRedisCommandsPerSecond: 0.002,
    idleRedisUsPerSecond: 0.2,
    idleServerUsPerSecond: 0.6,
    streamBytesPerEntry: 480,
    typingServerUs: 125,
    typingRedisUs: 8,
    typingRedisCommands: 1,
  };
  const scale: ScaleFigures = {
    throwServerUs: 300,
    throwPostgresUs: 80,
    throwRedisUs: 30,
    throwRedisCommands: 6,
    throwRows: 1,
    throwWalBytes: 760,
  };
  const costs: CostFigures = {
    messageExecuted: 4,
    messageRedisUs: 12,
    typingExecuted: 1,
    typingRedisUs: 3,
    startExecuted: 19.5,
    startRedisUs: 170,
    presenceCommands: 0.003,
    presenceRedisUs: 0.4,
    connectExecuted: 7,
    connectRedisUs: 40,
    leaveExecuted: 12,
    leaveRedisUs: 30,
    endExecuted: 16,
    endRedisUs: 30,
  };
  const redisParagraph = (k: CostFigures) =>
    renderPlan({ match, chat, scale, costs: k }).find((line) => line.startsWith("**Redis**")) ?? "";
  const visitorsAtFullUse = (paragraph: string) =>
    Number(/carries about \*\*([\d,]+) visitors\*\*/.exec(paragraph)?.[1]?.replaceAll(",", ""));

  test("prices each step at the light load when nothing busier was measured", () => {
    const V = PLAN.visitors;
    const perVisitor =
      (V / 10) * 12 + (V / 5) * 3 + (V / 120) * 170 + (V / 240) * 30 + (V / 600) * 70 + V * 0.4;
    const expected = (1e6 - 1000 * 30) / (perVisitor / V);
    expect(visitorsAtFullUse(redisParagraph(costs))).toBeCloseTo(expected, -1);
  });

  test("prices a message, a typing call and a start as a busy Redis pays, and presence apart", () => {
    const busy = redisParagraph({
      ...costs,
      messageBusyRedisUs: 10,
      typingBusyRedisUs: 0.5,
      startBusyRedisUs: 50,
      redisOwnUsPerSecond: 1600,
      instanceRedisUsPerSecond: 120,
      visitorRedisUsPerSecond: 0,
    });
    const V = PLAN.visitors;
    // The instances the plan counts (CPU at 50 % each), which share out presence.
    const instances = Number(
      /so \*\*(\d+) instances\*\*/.exec(renderPlan({ match, chat, scale, costs }).join("\n"))?.[1],
    );
    expect(instances).toBeGreaterThan(1);
    const presence = (120 * instances) / V;
    const perVisitor =
      ((V / 10) * 10 + (V / 5) * 0.5 + (V / 120) * 50 + (V / 240) * 30 + (V / 600) * 70) / V +
      presence;
    const expected = (1e6 - 1000 * 30 - 1600) / perVisitor;
    expect(visitorsAtFullUse(busy)).toBeCloseTo(expected, -1);
    expect(busy).toContain("10,000 × 10.0 + 20,000 × 0.5 + 833 × 50.0");
    expect(busy).toContain("1,600 (Redis's own housekeeping)");
  });
});
