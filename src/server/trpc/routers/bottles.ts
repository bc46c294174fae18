import { z } from "zod";
import {
  bottleIdInput,
  createBottleInput,
  findsSinceInput,
  myBottlesInput,
  reportBottleInput,
} from "../../../common/bottles.ts";
import {
  discoverBottle,
  likeOf,
  listPublicBottles,
  throwBottle,
  toggleLike,
} from "../../../core/bottles/bottles.ts";
import {
  findsSince,
  listMyBottles,
  ownBottleAfloat,
  sinkBottle,
} from "../../../core/bottles/my-bottles.ts";
import { reportBottle } from "../../../core/bottles/reports.ts";
import { ageAnswerSlots, ageStanding, answerAgeGate } from "../../../core/safety/ages.ts";
import { powProcedure, protectedProcedure, publicProcedure, router } from "../init.ts";

export const bottlesRouter = router({
  throw: powProcedure("throw")
    .meta({ feature: "bottles" })
    .input(createBottleInput)
    .mutation(({ ctx, input }) =>
      throwBottle(ctx.db, { ...ctx, mutes: ctx.chat.broker }, ctx.requester, input, ctx.now()),
    ),

  /** Where the visitor stands at the bottles' age gate (13 or older). */
  age: publicProcedure.query(async ({ ctx }) => ({
    age: await ageStanding(ctx.db, ctx.requester.visitorId, "bottles", ctx.now()),
  })),

  /** The gate's answer: 13 or older, or not (which refuses writing bottles for 30 days). */
  confirmAge: publicProcedure
    .input(z.object({ atLeast13: z.boolean() }))
    .mutation(async ({ ctx, input }) => {
      await ctx.limiter.take(ageAnswerSlots(ctx.requester));
      return {
        age: await answerAgeGate(
          ctx.db,
          ctx.requester.visitorId,
          "bottles",
          input.atLeast13,
          ctx.now(),
        ),
      };
    }),

  /** A random bottle, with the pass that lets this reader translate it later (see shown.ts). */
  discover: publicProcedure.meta({ feature: "bottles" }).query(async ({ ctx }) => {
    const bottle = await discoverBottle(
      ctx.db,
      ctx,
      { ...ctx.requester, locale: ctx.locale },
      ctx.now(),
    );
    // Nothing found: the reader's own bottle may be the only one out there, and the page says so.
    if (!bottle) {
      return { bottle, onlyYours: await ownBottleAfloat(ctx.db, ctx.requester, ctx.now()) };
    }
    return {
      bottle: { ...bottle, shownPass: ctx.shownBottles.pass(ctx.requester.visitorId, bottle.id) },
      onlyYours: false,
    };
  }),

  publicList: publicProcedure.meta({ feature: "publicBottles" }).query(async ({ ctx }) => ({
    bottles: await listPublicBottles(ctx.db, ctx.user?.id ?? null, ctx.now()),
  })),

  /**
   * My bottles: what this browser threw and, signed in, what the account threw anywhere. Not
   * switched off with the bottles: a writer can always see and sink their own.
   */
  mine: publicProcedure
    .input(myBottlesInput)
    .query(({ ctx, input }) =>
      listMyBottles(ctx.db, ctx, ctx.requester, input.cursor ?? null, ctx.now()),
    ),

  /** How often the writer's bottles were found since the time the browser last saw. */
  findsSince: publicProcedure
    .input(findsSinceInput)
    .query(({ ctx, input }) => findsSince(ctx.db, ctx, ctx.requester, input.since, ctx.now())),

  /** The writer takes their own bottle out of the ocean for good; anyone else gets NOT_FOUND. */
  sink: publicProcedure
    .input(bottleIdInput)
    .mutation(({ ctx, input }) => sinkBottle(ctx.db, ctx.limiter, ctx.requester, input.bottleId)),

  likeOf: protectedProcedure
    .meta({ feature: "bottles" })
    .input(bottleIdInput)
    .query(({ ctx, input }) =>
      likeOf(
        ctx.db,
        ctx.limiter,
        { ...ctx.requester, userId: ctx.user.id },
        input.bottleId,
        ctx.now(),
      ),
    ),

  toggleLike: protectedProcedure
    .meta({ feature: "bottles" })
    .input(bottleIdInput)
    .mutation(({ ctx, input }) =>
      toggleLike(
        ctx.db,
        ctx.limiter,
        { ...ctx.requester, userId: ctx.user.id },
        input.bottleId,
        ctx.now(),
      ),
    ),

  report: protectedProcedure
    .meta({ feature: "bottles" })
    .input(reportBottleInput)
    .mutation(async ({ ctx, input }) => {
      await reportBottle(ctx.db, ctx, { ...ctx.requester, userId: ctx.user.id }, input, ctx.now());
      return { ok: true as const };
    }),
});
