import { z } from "./zod.ts";

/**
 * The actions a visitor proves a moment of work for before the server does them: a challenge
 * solved for one opens none of the others.
 */
export const powActions = ["chat", "throw", "signUp", "signIn", "contact"] as const;
export type PowAction = (typeof powActions)[number];

/**
 * A chat start solved for lets the visitor start this many more, for this long, without one
 * (Next stays instant). Bound to the visitor cookie and the address.
 */
export const CHAT_PASS = { starts: 30, ttlMs: 10 * 60_000 } as const;

/** A solved challenge as the web sends it: ALTCHA's payload (challenge and solution) as JSON. */
export const POW_SOLUTION_MAX = 2000;

/** The solution field a protected call carries; missing when none is needed (or pow is off). */
export const powInput = z.object({ pow: z.string().max(POW_SOLUTION_MAX).optional() });

/** A challenge as the server issues it (ALTCHA's v2 shape, which the solver reads as it is). */
export interface PowChallenge {
  parameters: {
    algorithm: string;
    nonce: string;
    salt: string;
    cost: number;
    keyLength: number;
    keyPrefix: string;
    keySignature?: string;
    expiresAt?: number;
    data?: Record<string, string | number | boolean | null>;
  };
  signature?: string;
}
