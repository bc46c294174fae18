import { createHmac } from "node:crypto";
import { createChallenge, randomInt, verifySolution } from "altcha-lib";
import { deriveKey } from "altcha-lib/algorithms/pbkdf2";
import { z } from "zod";
import { CHAT_PASS, type PowAction, type PowChallenge } from "../../common/pow.ts";
import { DomainError } from "../errors.ts";
import { ExpiringMap } from "../limits/expiring-map.ts";
import type { VisitorKeys } from "../requester.ts";
import type { PassStore, SolutionStore } from "./stores.ts";

/**
 * Each attempt is one PBKDF2-SHA-256 derivation of this many rounds: the browser runs it as
 * native code (WebCrypto), so a script on a server gains little over a visitor's phone, and the
 * server pays one derivation to issue a challenge and an HMAC to verify one.
 */
export const POW_ALGORITHM = "PBKDF2/SHA-256";
export const POW_ROUNDS = 250;

/** How long a challenge may wait to be solved and sent: a bottle can take a while to write. */
export const CHALLENGE_TTL_MS = 10 * 60_000;

export { CHAT_PASS } from "../../common/pow.ts";

/**
 * While limits refuse a visitor or an address, their challenges cost more: 8 times after a
 * refusal (up to 64 times after several), halving every two minutes back to the base.
 */
export const PRESSURE = { factor: 8, max: 64, halfLifeMs: 2 * 60_000 } as const;

/** Signing in needs proof of work after this many wrong passwords within the window. */
export const SIGN_IN_FAILURES = { free: 2, windowMs: 15 * 60_000 } as const;

/** Per-visitor memory is bounded (the oldest go first in a flood of new keys). */
const MAX_TRACKED = 100_000;

export class PowRequiredError extends DomainError {
  constructor() {
    super("POW_REQUIRED", "this action needs a solved challenge");
  }
}

/** Malformed, for another action or visitor, expired, too cheap, wrong, or already used. */
export class PowInvalidError extends DomainError {
  constructor(why: string) {
    super("POW_INVALID", `the solved challenge is refused: ${why}`);
  }
}

export interface PowOptions {
  /** Off: no challenge is issued and none is asked for. */
  enabled: boolean;
  /** The mean number of derivations a solve takes at the base (POW_COST). */
  cost: number;
  /** The site's SECRET; the challenge keys are derived from it. */
  secret: string;
  solutions: SolutionStore;
  passes: PassStore;
  now: () => number;
}

const hex = z.string().regex(/^[0-9a-f]{1,256}$/);

/** The payload the web sends: only what verification reads, each field bounded. */
const payloadSchema = z.object({
  challenge: z.object({
    parameters: z.object({
      algorithm: z.literal(POW_ALGORITHM),
      nonce: hex,
      salt: hex,
      cost: z.literal(POW_ROUNDS),
      keyLength: z.number().int().min(1).max(64),
      keyPrefix: hex,
      keySignature: hex,
      data: z.object({
        action: z.string().max(16),
        visitor: z.string().max(32),
        expires: z.number().int(),
        times: z.number().int().min(1).max(PRESSURE.max),
      }),
    }),
    signature: hex,
  }),
  solution: z.object({
    counter: z.number().int().min(0).max(0xffffffff),
    derivedKey: hex,
  }),
});

/**
 * Proof of work with ALTCHA (altcha-lib, through its public API): challenges signed with a key
 * derived from SECRET, bound to an action, the visitor (a keyed hash of the cookie, never the
 * cookie itself) and an expiry; each solution accepted once, recorded only after it verified.
 */
export class ProofOfWork {
  readonly #signing: string;
  readonly #keySigning: string;
  readonly #visitorKey: string;
  /** Refusals by limits, by "v:<visitor>" and "ip:<address>": the cost multiplier and when. */
  readonly #pressure: ExpiringMap<string, { times: number; at: number }>;
  /** Wrong passwords by visitor and by address: when the first of the window was, and how many. */
  readonly #signInFailures: ExpiringMap<string, { count: number; since: number }>;

  constructor(private readonly options: PowOptions) {
    const derive = (purpose: string) =>
      createHmac("sha256", options.secret).update(`tidings pow: ${purpose}`).digest("base64url");
    this.#signing = derive("challenge signature");
    this.#keySigning = derive("key signature");
    this.#visitorKey = derive("visitor");
    // Pressure decays to nothing within ~6 half-lives; entries older than that are let go.
    this.#pressure = new ExpiringMap(PRESSURE.halfLifeMs * 6, options.now, MAX_TRACKED);
    this.#signInFailures = new ExpiringMap(SIGN_IN_FAILURES.windowMs, options.now, MAX_TRACKED);
  }

  get enabled(): boolean {
    return this.options.enabled;
  }

  #visitorTag(visitorId: string): string {
    return createHmac("sha256", this.#visitorKey).update(visitorId).digest("hex").slice(0, 32);
  }

  #passKey(who: VisitorKeys): string {
    return `${who.visitorId}|${who.ipKey}`;
  }

  /** The cost multiplier a visitor's challenges carry now (1 unless limits refused them lately). */
  multiplier(who: VisitorKeys): number {
    const now = this.options.now();
    let times = 1;
    for (const key of [`v:${who.visitorId}`, `ip:${who.ipKey}`]) {
      const entry = this.#pressure.get(key);
      if (!entry) continue;
      const decayed = entry.times * 2 ** (-(now - entry.at) / PRESSURE.halfLifeMs);
      times = Math.max(times, decayed);
    }
    return Math.max(1, Math.ceil(times - 1e-9));
  }

  /** A limit refused this visitor: their next challenges cost more, by visitor and by address. */
  refused(who: VisitorKeys): void {
    const now = this.options.now();
    const times = Math.min(PRESSURE.max, this.multiplier(who) * PRESSURE.factor);
    for (const key of [`v:${who.visitorId}`, `ip:${who.ipKey}`]) {
      this.#pressure.set(key, { times, at: now });
    }
  }

  /** A wrong password: after a few, signing in from here needs proof of work too. */
  signInFailed(who: VisitorKeys): void {
    const now = this.options.now();
    for (const key of [`v:${who.visitorId}`, `ip:${who.ipKey}`]) {
      const entry = this.#signInFailures.get(key);
      if (entry && now - entry.since < SIGN_IN_FAILURES.windowMs) entry.count += 1;
      else this.#signInFailures.set(key, { count: 1, since: now });
    }
  }

  #signInNeedsWork(who: VisitorKeys): boolean {
    const now = this.options.now();
    return [`v:${who.visitorId}`, `ip:${who.ipKey}`].some((key) => {
      const entry = this.#signInFailures.get(key);
      return (
        entry !== undefined &&
        now - entry.since < SIGN_IN_FAILURES.windowMs &&
        entry.count >= SIGN_IN_FAILURES.free
      );
    });
  }

  /**
   * A challenge for the action, or null when none is needed right now: proof of work is off,
   * or signing in has not failed lately. (A chat pass is not looked at: a start sent with a
   * solution while the pass lasts is let in by the pass, and the solution is not used up.)
   */
  async challenge(action: PowAction, who: VisitorKeys): Promise<PowChallenge | null> {
    if (!this.options.enabled) return null;
    if (action === "signIn" && !this.#signInNeedsWork(who)) return null;
    const times = this.multiplier(who);
    const attempts = this.options.cost * times;
    return createChallenge({
      algorithm: POW_ALGORITHM,
      cost: POW_ROUNDS,
      deriveKey,
      // Drawn evenly from 1 to twice the mean: the solver counts up from 0 until it finds it.
      counter: randomInt(Math.max(1, 2 * attempts - 1)),
      data: {
        action,
        visitor: this.#visitorTag(who.visitorId),
        expires: this.options.now() + CHALLENGE_TTL_MS,
        times,
      },
      hmacSignatureSecret: this.#signing,
      hmacKeySignatureSecret: this.#keySigning,
    }) as Promise<PowChallenge>;
  }

  /**
   * Lets the action run, or throws POW_REQUIRED / POW_INVALID before anything of it has run.
   * The solution is verified first and recorded after, in one atomic step, so a replay (or the
   * same solution sent many times at once) is accepted exactly once. A chat start is let in by
   * the visitor's pass while it has starts left; a solved one grants a new pass.
   */
  async admit(action: PowAction, solution: unknown, who: VisitorKeys): Promise<void> {
    if (!this.options.enabled) return;
    if (action === "signIn" && !this.#signInNeedsWork(who)) return;
    if (action === "chat" && (await this.options.passes.take(this.#passKey(who)))) return;
    if (solution === undefined || solution === null || solution === "") {
      throw new PowRequiredError();
    }
    await this.verify(action, solution, who);
    if (action === "chat") {
      await this.options.passes.grant(this.#passKey(who), CHAT_PASS.starts - 1, CHAT_PASS.ttlMs);
    }
  }

  /** Verifies and records one solution (see admit); exported for the unit tests and benchmarks. */
  async verify(action: PowAction, solution: unknown, who: VisitorKeys): Promise<void> {
    if (typeof solution !== "string") throw new PowInvalidError("not a payload");
    let parsed: z.infer<typeof payloadSchema>;
    try {
      parsed = payloadSchema.parse(JSON.parse(solution));
    } catch {
      throw new PowInvalidError("malformed");
    }
    const { parameters } = parsed.challenge;
    const { data } = parameters;
    if (data.action !== action) throw new PowInvalidError("for another action");
    if (data.visitor !== this.#visitorTag(who.visitorId)) {
      throw new PowInvalidError("for another visitor");
    }
    const now = this.options.now();
    if (data.expires <= now) throw new PowInvalidError("expired");
    // Solved at a cost from before a limit refused this visitor: solve one at today's cost.
    if (data.times < this.multiplier(who)) throw new PowInvalidError("too cheap now");
    const result = await verifySolution({
      // The parsed payload, whose every field the signature covers (a field added or changed
      // fails it); zod dropped nothing the signature saw, as the schema names every field.
      challenge: parsed.challenge,
      solution: parsed.solution,
      deriveKey,
      hmacSignatureSecret: this.#signing,
      hmacKeySignatureSecret: this.#keySigning,
    });
    if (!result.verified) throw new PowInvalidError("not solved");
    if (!(await this.options.solutions.record(parameters.nonce, data.expires))) {
      throw new PowInvalidError("already used");
    }
  }

  /** Lets go of expired records (the hourly purge) and of what memory holds past its time. */
  async purge(): Promise<void> {
    this.#pressure.prune();
    this.#signInFailures.prune();
    await this.options.solutions.purge(this.options.now());
  }
}
