import { z } from "zod";
import { targetLanguages } from "../../../common/translation.ts";
import { findVisibleBottle } from "../../../core/bottles/bottles.ts";
import { DomainError } from "../../../core/errors.ts";
import { databaseTranslations } from "../../../core/translation/cache.ts";
import { availableTargets, translateForVisitor } from "../../../core/translation/service.ts";
import { publicProcedure, router } from "../init.ts";

export const translateRouter = router({
  /** Which of the eight targets this server can serve; the menu disables the rest. */
  languages: publicProcedure.query(async ({ ctx }) => ({
    targets: await availableTargets(ctx.translator),
  })),

  bottle: publicProcedure
    .input(z.object({ bottleId: z.number().int().positive(), target: z.enum(targetLanguages) }))
    .mutation(async ({ ctx, input }) => {
      const bottle = await findVisibleBottle(ctx.db, input.bottleId, ctx.now());
      if (!bottle) throw new DomainError("NOT_FOUND", "bottle not found");
      return translateForVisitor(
        databaseTranslations(ctx.db),
        ctx,
        ctx,
        bottle.message,
        input.target,
        ctx.now(),
      );
    }),
});
