import type { TRPCError } from "@trpc/server";
import { type Scheduler, systemTime } from "../core/clock.ts";
import { asDomainError } from "../core/errors.ts";
import { isRedisUnavailable } from "../core/redis-script.ts";

/** Whether the error, or one of its causes, is Redis out of reach. */
function isRedisOutage(error: unknown): boolean {
  for (let cause = error, depth = 0; cause && depth < 4; depth++) {
    if (isRedisUnavailable(cause)) return true;
    cause = (cause as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * The server's error log. Only real faults are written (a client's bad input is answered, not
 * logged), and each distinct fault at most once a minute, with a count of the repeats written
 * when the minute ends: nothing a client sends can grow the log without bound.
 */
export interface ErrorLog {
  /** A fault; `reqId` names the request it happened in, when there is one. */
  fault(label: string, error: unknown, reqId?: string): void;
  /** tRPC's errors: only an internal error that is no domain error is a fault. */
  trpc(error: TRPCError, reqId?: string): void;
  /** Writes what the last minute held back; called by the timer, and at stop. */
  flush(): void;
  close(): void;
}

interface Options {
  write?: (line: string, reqId?: string) => void;
  /** Told of every fault, folded or not (the metrics count them). */
  onFault?: () => void;
  windowMs?: number;
  /** Distinct faults told apart per window; past this, they share one line. */
  maxKinds?: number;
  /** The timers the window runs on (the system's). */
  scheduler?: Scheduler;
}

const oneLine = (text: string, max = 300) => {
  const flat = text.replace(/\s+/g, " ");
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
};

export function createErrorLog(options: Options = {}): ErrorLog {
  const write = options.write ?? ((line) => console.error(line));
  const maxKinds = options.maxKinds ?? 50;
  /** Faults seen this window, by kind, with how many were held back. */
  const seen = new Map<string, number>();

  const flush = () => {
    for (const [kind, repeats] of seen) {
      if (repeats > 0) write(`${kind} (repeated ${repeats} more times in the last minute)`);
    }
    seen.clear();
  };
  const scheduler = options.scheduler ?? systemTime;
  const timer = scheduler.setInterval(flush, options.windowMs ?? 60_000);
  timer.unref();

  const fault = (label: string, error: unknown, reqId?: string) => {
    // Redis out of reach is told once per outage where its connections are watched
    // (shared-state.ts), however much work it refuses meanwhile.
    if (isRedisOutage(error)) return;
    options.onFault?.();
    const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    let kind = oneLine(`${label}: ${detail}`);
    if (!seen.has(kind) && seen.size >= maxKinds) kind = "other server errors";
    const repeats = seen.get(kind);
    if (repeats !== undefined) {
      seen.set(kind, repeats + 1);
      return;
    }
    seen.set(kind, 0);
    const stack = error instanceof Error && error.stack ? `\n${error.stack}` : "";
    write(`${kind}${stack.length > 4000 ? `${stack.slice(0, 4000)}…` : stack}`, reqId);
  };

  return {
    fault,
    trpc(error, reqId) {
      if (error.code !== "INTERNAL_SERVER_ERROR") return;
      const cause = error.cause;
      // Expected answers, an outage's among them: Redis or the database out of reach is told
      // once per outage where the connections are watched, not once per call here.
      const domain = asDomainError(cause);
      if (domain && domain.code !== "INTERNAL") return;
      fault("tRPC", cause ?? error, reqId);
    },
    flush,
    close() {
      scheduler.clearInterval(timer);
      flush();
    },
  };
}
