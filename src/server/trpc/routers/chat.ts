import { tracked } from "@trpc/server";
import { z } from "zod";
import {
  blockInput,
  type ChatEvent,
  chatEventsInput,
  reportChatInput,
  sendChatInput,
  typingInput,
} from "../../../common/chat.ts";
import {
  type MatchPreferencesInput,
  matchPreferencesInput,
} from "../../../common/chat-preferences.ts";
import { targetLanguages } from "../../../common/translation.ts";
import type { FeatureSwitches } from "../../../core/admin/features.ts";
import { blockPartner } from "../../../core/chat/blocks.ts";
import type { ChatBroker } from "../../../core/chat/broker.ts";
import { onlineFor } from "../../../core/chat/online.ts";
import { prepareInterestKeys } from "../../../core/chat/preferences.ts";
import { reportChatMessage } from "../../../core/chat/reports.ts";
import { sendChatMessage } from "../../../core/chat/send.ts";
import { answerChatAge, refuseBanned, startChat, widenSearch } from "../../../core/chat/start.ts";
import { DomainError } from "../../../core/errors.ts";
import { ageAnswerSlots, ageStanding } from "../../../core/safety/ages.ts";
import { availableTargets, translateForVisitor } from "../../../core/translation/service.ts";
import type { Context } from "../context.ts";
import { chatProcedure, powProcedure, publicProcedure, router } from "../init.ts";

/**
 * The visitor's events in batches (everything waiting in one frame), each tracked by its last
 * event's id so a reconnecting stream resumes after it. When the operator switches chat off
 * (here, or on another instance, read within the 5 s the switches are polled), the visitor's
 * search or chat ends the usual way (a partner hears "left"), the stream says "resting" and
 * ends.
 */
async function* trackedEvents(
  chat: { broker: ChatBroker; features: FeatureSwitches },
  visitorId: string,
  lastEventId: string | null | undefined,
  signal: AbortSignal,
) {
  const switchedOff = new AbortController();
  const stopListening = chat.features.onChange((states) => {
    if (!states.chat) switchedOff.abort();
  });
  let lastId = lastEventId ?? null;
  try {
    const until = AbortSignal.any([signal, switchedOff.signal]);
    for await (const batch of chat.broker.events(visitorId, lastEventId, until)) {
      const last = batch.at(-1);
      if (!last) continue;
      lastId = last.id;
      yield tracked(
        last.id,
        batch.map((numbered) => numbered.event),
      );
    }
  } finally {
    stopListening();
  }
  if (!switchedOff.signal.aborted || signal.aborted) return;
  await chat.broker.end(visitorId);
  const resting: ChatEvent[] = [{ type: "resting" }];
  // The last event's id: the stream ends here, and a resume would start after the same point.
  yield tracked(lastId ?? "0", resting);
}

/** chat.start and chat.startWith: the same start, with or without preferences. */
function startFor(ctx: Context, asked: MatchPreferencesInput | undefined) {
  return startChat(ctx.db, { ...ctx.chat, limiter: ctx.limiter }, ctx.requester, asked, ctx.now());
}

export const chatRouter = router({
  /** The visitor's chat stream; reconnecting with the last event id resumes without loss. */
  events: chatProcedure.input(chatEventsInput).subscription(async ({ ctx, input, signal }) => {
    // Refused before the stream starts, inside the middlewares, so a banned visitor gets
    // FORBIDDEN (not an internal error) and the server has nothing to log.
    await refuseBanned(ctx.chat.bans, ctx.requester, ctx.now());
    prepareInterestKeys();
    // One stream per connection: a second replaces the first, which ends ("stopped").
    ctx.connection.chatStream?.abort();
    const replaced = new AbortController();
    ctx.connection.chatStream = replaced;
    const ended = signal ? AbortSignal.any([signal, replaced.signal]) : replaced.signal;
    return trackedEvents(
      { broker: ctx.chat.broker, features: ctx.features },
      ctx.requester.visitorId,
      input?.lastEventId,
      ended,
    );
  }),

  me: publicProcedure.query(async ({ ctx }) => {
    const { code, name } = ctx.requester.country();
    return {
      country: { code, name },
      bannedUntil: await ctx.chat.bans.until(ctx.requester.visitorId, ctx.requester.ipKey),
      age: await ageStanding(ctx.db, ctx.requester.visitorId, "chat", ctx.now()),
    };
  }),

  /**
   * The safety gate's answer: 18 or older, or not (which refuses chat for 30 days and ends a
   * chat in progress).
   */
  confirmAge: publicProcedure
    .input(z.object({ adult: z.boolean() }))
    .mutation(async ({ ctx, input }) => {
      await ctx.limiter.take(ageAnswerSlots(ctx.requester));
      return {
        age: await answerChatAge(
          ctx.db,
          ctx.chat.broker,
          ctx.requester.visitorId,
          input.adult,
          ctx.now(),
        ),
      };
    }),

  /** Visitors waiting or chatting, and how many of them are not the one asking. */
  online: publicProcedure.query(({ ctx }) => onlineFor(ctx.chat.broker, ctx.requester.visitorId)),

  /**
   * Joins the pool to meet anyone. Takes no input, so a bare POST (no body) works: it carries
   * no proof of work, and is let in while the visitor's chat pass lasts (the web sends its
   * first start, with the solution, as startWith).
   */
  start: chatProcedure.meta({ pow: "chat" }).mutation(({ ctx }) => startFor(ctx, undefined)),

  /** Joins the pool asking for a shared language or interest (nothing named is "Anyone"). */
  startWith: powProcedure("chat")
    .meta({ feature: "chat" })
    .input(matchPreferencesInput)
    .mutation(({ ctx, input }) => startFor(ctx, input)),

  /** A visitor waiting for a shared language takes anyone now. */
  widen: chatProcedure.mutation(async ({ ctx }) => {
    await widenSearch({ ...ctx.chat, limiter: ctx.limiter }, ctx.requester);
    return { ok: true as const };
  }),

  send: chatProcedure.input(sendChatInput).mutation(({ ctx, input }) => {
    return sendChatMessage(
      ctx.db,
      { ...ctx.chat, repeats: ctx.repeats, limiter: ctx.limiter },
      {
        visitorId: ctx.requester.visitorId,
        ipKey: ctx.requester.ipKey,
        country: ctx.requester.country(),
      },
      input.content,
      ctx.now(),
    );
  }),

  typing: publicProcedure.input(typingInput).mutation(async ({ ctx, input }) => {
    await ctx.chat.broker.typing(ctx.requester.visitorId, input.isTyping);
    return { ok: true as const };
  }),

  end: publicProcedure.mutation(async ({ ctx }) => {
    await ctx.chat.broker.end(ctx.requester.visitorId);
    return { ok: true as const };
  }),

  /**
   * Ends the chat and never pairs the two again (30 days); once it has ended, the partner is
   * named by one of their messages.
   */
  block: publicProcedure.input(blockInput).mutation(async ({ ctx, input }) => {
    await blockPartner(
      ctx.db,
      ctx.chat.broker,
      ctx.requester.visitorId,
      ctx.now(),
      input?.messageId,
    );
    return { ok: true as const };
  }),

  /** Reports a partner's message; answers whether it was recorded or already reported. */
  report: publicProcedure.input(reportChatInput).mutation(async ({ ctx, input }) => {
    const outcome = await reportChatMessage(
      ctx.db,
      { ...ctx.chat, moderator: ctx.moderator, limiter: ctx.limiter },
      ctx.requester,
      input,
      ctx.now(),
    );
    return { ok: true as const, outcome };
  }),

  /** The targets this server can translate a partner's message into (never its own language). */
  translateTargets: publicProcedure
    .input(z.object({ messageId: z.string().min(1).max(64) }))
    .query(async ({ ctx, input }) => {
      const message = await ctx.chat.broker.partnerMessage(
        ctx.requester.visitorId,
        input.messageId,
      );
      if (!message) throw new DomainError("NOT_FOUND", "no such message from a partner");
      return { targets: await availableTargets(ctx.translator, message.content) };
    }),

  translate: publicProcedure
    .input(z.object({ messageId: z.string().min(1).max(64), target: z.enum(targetLanguages) }))
    .mutation(async ({ ctx, input }) => {
      const message = await ctx.chat.broker.partnerMessage(
        ctx.requester.visitorId,
        input.messageId,
      );
      if (!message) throw new DomainError("NOT_FOUND", "no such message from a partner");
      return translateForVisitor(
        ctx.chatTranslations,
        ctx,
        ctx.requester,
        message.content,
        input.target,
        ctx.now(),
      );
    }),
});
