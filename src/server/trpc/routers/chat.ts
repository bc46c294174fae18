import { tracked } from "@trpc/server";
import { z } from "zod";
import {
  chatEventsInput,
  reportChatInput,
  sendChatInput,
  typingInput,
} from "../../../common/chat.ts";
import { targetLanguages } from "../../../common/translation.ts";
import type { ChatBroker } from "../../../core/chat/broker.ts";
import { eventStream } from "../../../core/chat/events.ts";
import { reportChatMessage } from "../../../core/chat/reports.ts";
import { DomainError } from "../../../core/errors.ts";
import { translateForVisitor } from "../../../core/translation/service.ts";
import type { Context } from "../context.ts";
import { publicProcedure, router } from "../init.ts";

const START_RATE = { limit: 30, windowMs: 60 * 1000 };

/** Banned visitors cannot subscribe, start or send; the error says until when. */
function refuseBanned(ctx: Context): void {
  const until = ctx.chat.bans.until(ctx.visitorId, ctx.ipKey);
  if (until !== null) {
    throw new DomainError(
      "CHAT_BANNED",
      "user is banned from chat",
      Math.ceil((until - ctx.now()) / 1000),
    );
  }
}

function chatVisitor(ctx: Context) {
  const { code, name } = ctx.country();
  return {
    visitorId: ctx.visitorId,
    ipKey: ctx.ipKey,
    country: { countryCode: code, country: name },
  };
}

/** The visitor's events, each tracked by its id so a reconnecting stream resumes after it. */
function trackedEvents(
  broker: ChatBroker,
  visitorId: string,
  lastEventId: string | null | undefined,
  signal: AbortSignal | undefined,
) {
  return eventStream(
    (onEvent) => broker.listen(visitorId, lastEventId, onEvent),
    ({ id, event }) => tracked(id, event),
    signal,
  );
}

export const chatRouter = router({
  /** The visitor's chat stream; reconnecting with the last event id resumes without loss. */
  events: publicProcedure.input(chatEventsInput).subscription(({ ctx, input, signal }) => {
    // Refused before the stream starts, inside the middlewares, so a banned visitor gets
    // FORBIDDEN (not an internal error) and the server has nothing to log.
    refuseBanned(ctx);
    return trackedEvents(ctx.chat.broker, ctx.visitorId, input?.lastEventId, signal);
  }),

  me: publicProcedure.query(({ ctx }) => {
    const { country } = chatVisitor(ctx);
    return { ...country, bannedUntil: ctx.chat.bans.until(ctx.visitorId, ctx.ipKey) };
  }),

  online: publicProcedure.query(({ ctx }) => ({ count: ctx.chat.broker.online() })),

  start: publicProcedure.mutation(({ ctx }) => {
    refuseBanned(ctx);
    ctx.limiter.consume([`chat-start:v:${ctx.visitorId}`], START_RATE);
    return ctx.chat.broker.start(chatVisitor(ctx));
  }),

  send: publicProcedure.input(sendChatInput).mutation(({ ctx, input }) => {
    refuseBanned(ctx);
    return ctx.chat.broker.send(ctx.visitorId, input.content);
  }),

  typing: publicProcedure.input(typingInput).mutation(({ ctx, input }) => {
    ctx.chat.broker.typing(ctx.visitorId, input.isTyping);
    return { ok: true as const };
  }),

  end: publicProcedure.mutation(({ ctx }) => {
    ctx.chat.broker.end(ctx.visitorId);
    return { ok: true as const };
  }),

  report: publicProcedure.input(reportChatInput).mutation(async ({ ctx, input }) => {
    await reportChatMessage(
      ctx.db,
      { ...ctx.chat, moderator: ctx.moderator, limiter: ctx.limiter },
      ctx,
      input,
      ctx.now(),
    );
    return { ok: true as const };
  }),

  translate: publicProcedure
    .input(z.object({ messageId: z.string().min(1).max(64), target: z.enum(targetLanguages) }))
    .mutation(async ({ ctx, input }) => {
      const message = ctx.chat.broker.partnerMessage(ctx.visitorId, input.messageId);
      if (!message) throw new DomainError("NOT_FOUND", "no such message from a partner");
      return translateForVisitor(ctx.db, ctx, ctx, message.content, input.target, ctx.now());
    }),
});
