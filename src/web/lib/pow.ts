import { useEffect, useRef, useState } from "react";
import type { PowAction, PowChallenge } from "../../common/pow.ts";
import { appCodeOf } from "./errors.ts";
import { trpc } from "./trpc.ts";

/** Set by the build (src/server/assets.ts): the worker's hashed path on this origin. */
const WORKER_URL = process.env.POW_WORKER_URL;

/** Past this wait for the solver, the send button says what the browser is doing. */
const SHOW_WORK_AFTER_MS = 500;

/** A solution on its way: the payload, or undefined when the server asks for none. */
type Prepared = Promise<string | undefined>;

/** Solves one challenge in a worker from our own origin; the payload the call carries. */
function solve(challenge: PowChallenge): Promise<string> {
  return new Promise((resolve, reject) => {
    if (!WORKER_URL) return reject(new Error("the proof-of-work worker is not built"));
    const worker = new Worker(WORKER_URL, { type: "module" });
    worker.onmessage = (event: MessageEvent<{ solution?: unknown; error?: string }>) => {
      worker.terminate();
      if (event.data.solution)
        resolve(JSON.stringify({ challenge, solution: event.data.solution }));
      else reject(new Error(event.data.error ?? "no solution"));
    };
    worker.onerror = (event) => {
      worker.terminate();
      reject(new Error(event.message));
    };
    worker.postMessage(challenge);
  });
}

/** A refusal that a fresh solution may mend (expired, used, asked for after all). */
export function isPowRefusal(error: unknown): boolean {
  const code = appCodeOf(error);
  return code === "POW_REQUIRED" || code === "POW_INVALID";
}

export interface Pow {
  /** The browser is still solving while the visitor waits to send (past half a second). */
  working: boolean;
  /**
   * Runs `call` with a solution: the one solved in the background, or, when the server
   * refuses it (expired, used, the cost went up), a fresh one, once and silently. `first`
   * "none" sends the first try without one (a chat start the visitor's pass lets in).
   */
  run<T>(call: (pow: string | undefined) => Promise<T>, first?: "prepared" | "none"): Promise<T>;
}

/**
 * Proof of work for one action of a page: a challenge asked for and solved in the background
 * as soon as the page shows, so pressing send rarely waits; a new one readied after each use.
 */
export function usePow(action: PowAction): Pow {
  const client = trpc.useUtils().client;
  const prepared = useRef<Prepared | null>(null);
  const [working, setWorking] = useState(false);

  const prepare = (): Prepared => {
    const next = client.pow.challenge
      .mutate({ action })
      .then(({ challenge }) => (challenge ? solve(challenge) : undefined));
    // A failure here is met when the solution is needed (the call is tried without one).
    next.catch(() => {});
    prepared.current = next;
    return next;
  };

  // biome-ignore lint/correctness/useExhaustiveDependencies: prepared once per page and action.
  useEffect(() => {
    prepare();
  }, [action]);

  /** The prepared solution (or a fresh one), waited for visibly; it is used up by the send. */
  const take = async (fresh: boolean): Promise<string | undefined> => {
    const current = fresh || !prepared.current ? prepare() : prepared.current;
    prepared.current = null;
    const shown = setTimeout(() => setWorking(true), SHOW_WORK_AFTER_MS);
    try {
      return await current.catch(() => undefined);
    } finally {
      clearTimeout(shown);
      setWorking(false);
    }
  };

  return {
    working,
    async run(call, first = "prepared") {
      try {
        const pow = first === "none" ? undefined : await take(false);
        try {
          return await call(pow);
        } catch (error) {
          if (!isPowRefusal(error)) throw error;
          return await call(await take(true));
        }
      } finally {
        // The next send gets its own, readied once this one is done (and so online again).
        if (!prepared.current) prepare();
      }
    },
  };
}
