import { z } from "zod";
import { powActions } from "../../../common/pow.ts";
import { visitorSlots } from "../../../core/limits/rate-limiter.ts";
import { publicProcedure, router } from "../init.ts";

/** Issuing costs the server one derivation: a visitor asks for a few a minute at most. */
const CHALLENGES = { limit: 30, windowMs: 60_000 };

export const powRouter = router({
  /**
   * A challenge for one action, or null when none is needed now (proof of work is off, or
   * signing in has not failed lately). A mutation: each call makes a new one, never cached.
   */
  challenge: publicProcedure
    .input(z.object({ action: z.enum(powActions) }))
    .mutation(async ({ ctx, input }) => {
      if (!ctx.pow.enabled) return { challenge: null };
      await ctx.limiter.take(visitorSlots("pow-challenge", ctx.requester, CHALLENGES));
      return { challenge: await ctx.pow.challenge(input.action, ctx.requester) };
    }),
});
