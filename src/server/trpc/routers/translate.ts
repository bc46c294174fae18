import { z } from "zod";
import { shownBottleInput } from "../../../common/bottles.ts";
import { targetLanguages } from "../../../common/translation.ts";
import { bottleTargets, translateBottle } from "../../../core/translation/service.ts";
import { publicProcedure, router } from "../init.ts";

export const translateRouter = router({
  /**
   * Which of the eight targets this server can serve: for one bottle's message, only those that
   * would translate it (the menu offers nothing else); without one, all it serves. A bottle
   * that is not public must come with the pass discover gave this reader for it.
   */
  languages: publicProcedure.input(shownBottleInput.optional()).query(async ({ ctx, input }) => ({
    targets: await bottleTargets(ctx.db, ctx, ctx.requester, input, ctx.now()),
  })),

  /** Translates a bottle that is public, or that discover showed this reader (its pass). */
  bottle: publicProcedure
    .input(shownBottleInput.extend({ target: z.enum(targetLanguages) }))
    .mutation(({ ctx, input }) =>
      translateBottle(ctx.db, ctx, ctx.requester, input, input.target, ctx.now()),
    ),
});
