import { sql } from "kysely";
import { migrationsFor } from "../../db/migrations/index.ts";
import type { DB } from "../../db/schema.ts";
import type { Engine } from "../../db/url.ts";

export interface Readiness {
  ready: boolean;
  /** Each check: "ok", or in a few words what is wrong (the details go to the log only). */
  checks: Record<string, string>;
}

/** A check that has not answered within this long counts as failed. */
const CHECK_TIMEOUT_MS = 2000;

/** A check that did not answer in time. */
export class NoAnswer extends Error {}

/**
 * The promise's answer, or NoAnswer once `ms` have passed without one (a Redis Cluster client
 * holds commands while it reconnects, however long that takes).
 */
export function within<T>(promise: Promise<T>, ms: number = CHECK_TIMEOUT_MS): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new NoAnswer(`no answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * Whether this instance should be sent visitors: its database answers and is migrated at least
 * as far as this version knows, Redis answers (when the site runs on several instances), and it
 * is not shutting down. Liveness is only that the process answers.
 */
export class Health {
  #draining = false;

  constructor(
    private readonly db: DB,
    private readonly engine: Engine,
    private readonly options: {
      redisPing?: () => Promise<unknown>;
      /** A failed check's error, for the log (the answer itself says only "unreachable"). */
      onFailure?: (check: string, error: unknown) => void;
      timeoutMs?: number;
    } = {},
  ) {}

  /** From now on, ready answers 503: a load balancer stops sending new visitors. */
  drain(): void {
    this.#draining = true;
  }

  get draining(): boolean {
    return this.#draining;
  }

  async ready(): Promise<Readiness> {
    const { redisPing, onFailure, timeoutMs = CHECK_TIMEOUT_MS } = this.options;
    const failed = (check: string) => (error: unknown) => {
      onFailure?.(check, error);
      return "unreachable";
    };
    const latest = Object.keys(migrationsFor(this.engine)).sort().at(-1) ?? "";
    const database = within(
      sql<{ name: string }>`SELECT max(name) AS name FROM kysely_migration`.execute(this.db),
      timeoutMs,
    ).then(({ rows }) => {
      const applied = rows[0]?.name ?? "";
      return applied >= latest ? "ok" : "migrations pending";
    }, failed("database"));
    const redis = redisPing
      ? within(redisPing(), timeoutMs).then(() => "ok", failed("redis"))
      : undefined;
    const checks: Record<string, string> = { database: await database };
    if (redis) checks.redis = await redis;
    checks.serving = this.#draining ? "shutting down" : "ok";
    return { ready: Object.values(checks).every((c) => c === "ok"), checks };
  }
}
