/**
 * The matching rule, simulated: visitors drawn from load-match.ts's population press start at
 * random (a Poisson stream of `perMinute`), and the pool pairs them by preferences.ts's own rule
 * (tierOf, bestTierOf, anyoneFrom, languageFrom) on a virtual clock, looking again when a
 * visitor's stage ends, as the brokers do. Nobody widens or leaves. Runs in well under a second.
 *
 *   bun scripts/bench/match-rule.ts
 *
 * prints the table for today's rule (no interest window) and the candidate windows.
 */
import {
  MATCH_TIMING,
  type MatchTiming,
  matchPreferencesInput,
} from "../../src/common/chat-preferences.ts";
import {
  anyoneFrom,
  bestTierOf,
  languageFrom,
  matchPreferencesOf,
  type Seeker,
  tierOf,
} from "../../src/core/chat/preferences.ts";
import { drawPreferences } from "./load-match.ts";

export interface RuleResult {
  /** Visitors paired on a shared interest, of all paired (0 to 1). */
  interestShare: number;
  /** From pressing start to being paired (ms). */
  medianWait: number;
  p95Wait: number;
  /** From the moment a partner was there (the later of the two presses) to being paired (ms). */
  medianAfterPartner: number;
  p95AfterPartner: number;
}

interface Simulated extends Seeker {
  id: number;
}

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;

/** `visitors` presses at `perMinute` a minute, paired by the rule with these stage lengths. */
export function simulate(
  perMinute: number,
  timing: MatchTiming,
  visitors = 4000,
  seed = 1,
): RuleResult {
  const next = random(seed);
  const drawn = drawPreferences(visitors, seed).map((json) =>
    matchPreferencesOf(matchPreferencesInput.parse(JSON.parse(json))),
  );
  const pool: Simulated[] = [];
  /** Looks at the pool again for a visitor at a time: [at, visitor]. */
  const timers: Array<[number, Simulated]> = [];
  const waits: number[] = [];
  const afterPartner: number[] = [];
  let onInterest = 0;
  let paired = 0;

  const match = (me: Simulated, now: number) => {
    if (!pool.includes(me)) return;
    const best = bestTierOf(me);
    let language: Simulated | undefined;
    let anyone: Simulated | undefined;
    let chosen: Simulated | undefined;
    let tier = -1;
    for (const other of pool) {
      if (other === me) continue;
      const t = tierOf(me, other, now, timing);
      if (t === best) {
        chosen = other;
        tier = t;
        break;
      }
      if (t === 1 && !language) language = other;
      if (t === 0 && !language && !anyone) anyone = other;
    }
    if (!chosen) {
      chosen = language ?? anyone;
      tier = language ? 1 : 0;
    }
    if (!chosen) {
      for (const at of [languageFrom(me, timing), me.anyoneFrom]) {
        if (at > now) timers.push([at, me]);
      }
      return;
    }
    pool.splice(pool.indexOf(chosen), 1);
    pool.splice(pool.indexOf(me), 1);
    const partnerThere = Math.max(me.since, chosen.since);
    for (const side of [me, chosen]) {
      waits.push(now - side.since);
      afterPartner.push(now - partnerThere);
    }
    paired += 2;
    if (tier === 2) onInterest += 2;
  };

  let clock = 0;
  for (let id = 0; id < visitors; id++) {
    // The next press, exponentially distributed; stage ends due before it are worked first.
    const arrives = clock - Math.log(1 - next()) * (60_000 / perMinute);
    for (;;) {
      let first = -1;
      for (let i = 0; i < timers.length; i++) {
        const [at] = timers[i] as [number, Simulated];
        if (at <= arrives && (first < 0 || at < (timers[first] as [number, Simulated])[0])) {
          first = i;
        }
      }
      if (first < 0) break;
      const [at, who] = timers.splice(first, 1)[0] as [number, Simulated];
      match(who, at);
    }
    clock = arrives;
    const preferences = drawn[id];
    const me: Simulated = {
      id,
      since: clock,
      ...(preferences ? { preferences } : {}),
      anyoneFrom: anyoneFrom(preferences, clock, timing),
    };
    pool.push(me);
    match(me, clock);
  }
  waits.sort((a, b) => a - b);
  afterPartner.sort((a, b) => a - b);
  return {
    interestShare: paired > 0 ? onInterest / paired : Number.NaN,
    medianWait: quantile(waits, 0.5),
    p95Wait: quantile(waits, 0.95),
    medianAfterPartner: quantile(afterPartner, 0.5),
    p95AfterPartner: quantile(afterPartner, 0.95),
  };
}

/** The rules compared: today's (no interest window) and the candidates. */
export const RULES: Array<{ name: string; timing: MatchTiming }> = [
  {
    name: "today: no interest window, fallback 5 s",
    timing: { interestWindowMs: 0, fallbackMs: 5000 },
  },
  { name: "interest 2 s, fallback 5 s", timing: { interestWindowMs: 2000, fallbackMs: 5000 } },
  { name: "interest 3 s, fallback 5 s", timing: { interestWindowMs: 3000, fallbackMs: 5000 } },
  { name: "interest 5 s, fallback 5 s", timing: { interestWindowMs: 5000, fallbackMs: 5000 } },
  { name: "interest 5 s, fallback 10 s", timing: { interestWindowMs: 5000, fallbackMs: 10_000 } },
  {
    name: "interest 10 s, fallback 15 s",
    timing: { interestWindowMs: 10_000, fallbackMs: 15_000 },
  },
];
export const RATES = [1, 5, 20, 200];

if (import.meta.main) {
  const s = (ms: number) => (ms / 1000).toFixed(1);
  console.log(
    "rule | visitors/min | interest share | median wait | p95 wait | p95 after a partner",
  );
  for (const { name, timing } of RULES) {
    for (const rate of RATES) {
      const r = simulate(rate, timing);
      const chosen =
        timing.interestWindowMs === MATCH_TIMING.interestWindowMs &&
        timing.fallbackMs === MATCH_TIMING.fallbackMs;
      console.log(
        `${name}${chosen ? " (chosen)" : ""} | ${rate} | ${(r.interestShare * 100).toFixed(0)}% | ${s(r.medianWait)} s | ${s(r.p95Wait)} s | ${s(r.p95AfterPartner)} s`,
      );
    }
  }
}
