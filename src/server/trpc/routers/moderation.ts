import { z } from "zod";
import { features } from "../../../core/admin/features.ts";
import { setBottleHidden, unbanFromChat } from "../../../core/admin/operator.ts";
import {
  actionDetail,
  banQueuedVisitor,
  bottleOf,
  dismissReports,
  moderationQueue,
  recentActions,
  recordAction,
  visitorOf,
} from "../../../core/admin/queue.ts";
import { operatorProcedure, router } from "../init.ts";

const subjectInput = z.object({ subject: z.string().min(1).max(100) });

/** The moderation queue and the off switches, for operators only; every action is recorded. */
export const moderationRouter = router({
  queue: operatorProcedure.query(async ({ ctx }) => ({
    groups: await moderationQueue(ctx.db, ctx.chat.bans),
    features: ctx.features.states,
    actions: await recentActions(ctx.db),
  })),

  hide: operatorProcedure.input(subjectInput).mutation(async ({ ctx, input }) => {
    await setBottleHidden(ctx.db, bottleOf(input.subject), true, ctx.now());
    await recordAction(ctx.db, ctx.user.username, "hide", input.subject, "", ctx.now());
    return { ok: true as const };
  }),

  unhide: operatorProcedure.input(subjectInput).mutation(async ({ ctx, input }) => {
    await setBottleHidden(ctx.db, bottleOf(input.subject), false, ctx.now());
    await recordAction(ctx.db, ctx.user.username, "unhide", input.subject, "", ctx.now());
    return { ok: true as const };
  }),

  /** Bans a reported visitor from chat, for as long as their escalation calls for. */
  ban: operatorProcedure.input(subjectInput).mutation(async ({ ctx, input }) => {
    const visitorId = visitorOf(input.subject);
    const { keys, until } = await banQueuedVisitor(ctx.db, ctx.chat, visitorId, ctx.now());
    await recordAction(
      ctx.db,
      ctx.user.username,
      "ban",
      input.subject,
      actionDetail.ban(keys, until),
      ctx.now(),
    );
    return { until };
  }),

  unban: operatorProcedure.input(subjectInput).mutation(async ({ ctx, input }) => {
    const lifted = await unbanFromChat(ctx.db, `visitor:${visitorOf(input.subject)}`, ctx.now());
    await ctx.chat.bans.lift(lifted);
    await recordAction(
      ctx.db,
      ctx.user.username,
      "unban",
      input.subject,
      actionDetail.unban(lifted),
      ctx.now(),
    );
    return { lifted };
  }),

  dismiss: operatorProcedure.input(subjectInput).mutation(async ({ ctx, input }) => {
    const closed = await dismissReports(ctx.db, input.subject, ctx.now());
    await recordAction(
      ctx.db,
      ctx.user.username,
      "dismiss",
      input.subject,
      actionDetail.dismiss(closed),
      ctx.now(),
    );
    return { closed };
  }),

  setFeature: operatorProcedure
    .input(z.object({ feature: z.enum(features), enabled: z.boolean() }))
    .mutation(async ({ ctx, input }) => {
      await ctx.features.set(input.feature, input.enabled, ctx.now());
      await recordAction(
        ctx.db,
        ctx.user.username,
        input.enabled ? "switch on" : "switch off",
        `feature:${input.feature}`,
        "",
        ctx.now(),
      );
      return { features: ctx.features.states };
    }),
});
