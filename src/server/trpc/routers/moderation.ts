import { z } from "zod";
import { audited, listActions } from "../../../core/admin/audit.ts";
import { features, storeFeature } from "../../../core/admin/features.ts";
import { setBottleHidden, unbanFromChat } from "../../../core/admin/operator.ts";
import {
  banQueuedVisitor,
  bottleOf,
  dismissReports,
  moderationQueue,
  visitorOf,
} from "../../../core/admin/queue.ts";
import type { KeyBan } from "../../../core/chat/bans.ts";
import { DomainError } from "../../../core/errors.ts";
import { translatesBeyondChineseScripts } from "../../../core/translation/index.ts";
import { operatorProcedure, router } from "../init.ts";

const subjectInput = z.object({ subject: z.string().min(1).max(100) });

const noBottle = () => new DomainError("NOT_FOUND", "no such bottle");

/**
 * The moderation queue and the off switches, for operators only. Every action is recorded in
 * the same transaction as the action itself, so neither exists without the other.
 */
export const moderationRouter = router({
  queue: operatorProcedure.query(async ({ ctx }) => ({
    groups: await moderationQueue(ctx.db, ctx.chat.bans),
    features: ctx.features.states,
    actions: await listActions(ctx.db),
    /** Whether a translator beyond Chinese script conversion is configured. */
    translator: translatesBeyondChineseScripts(ctx.translator),
  })),

  hide: operatorProcedure.input(subjectInput).mutation(async ({ ctx, input }) => {
    const now = ctx.now();
    await audited(ctx.db, ctx.user.username, input.subject, now, async (trx) => {
      const hidden = await setBottleHidden(trx, bottleOf(input.subject), true, now);
      if (!hidden) throw noBottle();
      return { action: "hide", details: hidden };
    });
    return { ok: true as const };
  }),

  unhide: operatorProcedure.input(subjectInput).mutation(async ({ ctx, input }) => {
    const now = ctx.now();
    await audited(ctx.db, ctx.user.username, input.subject, now, async (trx) => {
      if (!(await setBottleHidden(trx, bottleOf(input.subject), false, now))) throw noBottle();
      return { action: "unhide", details: {} };
    });
    return { ok: true as const };
  }),

  /** Bans a reported visitor from chat, for as long as their escalation calls for. */
  ban: operatorProcedure.input(subjectInput).mutation(async ({ ctx, input }) => {
    const now = ctx.now();
    const visitorId = visitorOf(input.subject);
    let bans: KeyBan[] = [];
    const { details } = await audited(
      ctx.db,
      ctx.user.username,
      input.subject,
      now,
      async (trx) => {
        const banned = await banQueuedVisitor(trx, ctx.chat, visitorId, now);
        bans = banned.bans;
        return { action: "ban" as const, details: { keys: banned.keys, until: banned.until } };
      },
    );
    // Recorded: now the running site holds it (every instance, on Redis), and the chats it
    // covers end.
    await ctx.chat.bans.put(bans, now);
    await ctx.chat.broker.ban(bans);
    return { until: details.until };
  }),

  unban: operatorProcedure.input(subjectInput).mutation(async ({ ctx, input }) => {
    const now = ctx.now();
    const key = `visitor:${visitorOf(input.subject)}`;
    const { details } = await audited(
      ctx.db,
      ctx.user.username,
      input.subject,
      now,
      async (trx) => ({
        action: "unban" as const,
        details: { lifted: await unbanFromChat(trx, key, now) },
      }),
    );
    await ctx.chat.bans.lift(details.lifted);
    return { lifted: details.lifted };
  }),

  dismiss: operatorProcedure.input(subjectInput).mutation(async ({ ctx, input }) => {
    const now = ctx.now();
    const { details } = await audited(
      ctx.db,
      ctx.user.username,
      input.subject,
      now,
      async (trx) => ({
        action: "dismiss" as const,
        details: { closed: await dismissReports(trx, input.subject, now) },
      }),
    );
    return { closed: details.closed };
  }),

  setFeature: operatorProcedure
    .input(z.object({ feature: z.enum(features), enabled: z.boolean() }))
    .mutation(async ({ ctx, input }) => {
      const now = ctx.now();
      await audited(ctx.db, ctx.user.username, `feature:${input.feature}`, now, async (trx) => {
        await storeFeature(trx, input.feature, input.enabled, now);
        return { action: input.enabled ? "switch on" : "switch off", details: {} };
      });
      await ctx.features.refresh();
      return { features: ctx.features.states };
    }),
});
