import { z } from "zod";
import { targetLanguages } from "../../../common/translation.ts";
import { findVisibleBottle } from "../../../core/bottles/bottles.ts";
import { DomainError } from "../../../core/errors.ts";
import { databaseTranslations } from "../../../core/translation/cache.ts";
import { availableTargets, translateForVisitor } from "../../../core/translation/service.ts";
import { publicProcedure, router } from "../init.ts";

export const translateRouter = router({
  /**
   * Which of the eight targets this server can serve: for one bottle's message, only those that
   * would translate it (the menu offers nothing else); without one, all it serves.
   */
  languages: publicProcedure
    .input(z.object({ bottleId: z.number().int().positive() }).optional())
    .query(async ({ ctx, input }) => {
      if (!input) return { targets: await availableTargets(ctx.translator) };
      const bottle = await findVisibleBottle(ctx.db, input.bottleId, ctx.now());
      if (!bottle) throw new DomainError("NOT_FOUND", "bottle not found");
      return { targets: await availableTargets(ctx.translator, bottle.message) };
    }),

  bottle: publicProcedure
    .input(z.object({ bottleId: z.number().int().positive(), target: z.enum(targetLanguages) }))
    .mutation(async ({ ctx, input }) => {
      const bottle = await findVisibleBottle(ctx.db, input.bottleId, ctx.now());
      if (!bottle) throw new DomainError("NOT_FOUND", "bottle not found");
      return translateForVisitor(
        databaseTranslations(ctx.db),
        ctx,
        ctx.requester,
        bottle.message,
        input.target,
        ctx.now(),
      );
    }),
});
