import type { ChatEvent, ChatStatus } from "../../../common/chat.ts";
import type { Numbered } from "../mailbox.ts";
import type { RedisChat } from "./engine.ts";
import {
  chatRefOf,
  countryOf,
  FORGET_CHECKS,
  LocalStream,
  LocalVisitor,
  type PoolStatus,
  publicStatus,
  type Queued,
} from "./local.ts";
import type { Paired } from "./pairing.ts";
import type { SideChannels } from "./sides.ts";
import { type Checks, OUTSIDE, parsePayload, parseResume, unkeptChat } from "./wire.ts";

/** What the streams need of pairing: a pairing the pool made when a visitor attached. */
export interface PairingForStreams {
  openHere(local: LocalVisitor | undefined, paired: Paired): Promise<void>;
}

/**
 * The visitors' event streams on this instance: the first stream of a visitor attaches them in
 * the pool (which learns this instance holds them) and subscribes their channel; what their
 * channels carry is handed to every stream of theirs (LocalVisitor.hear); a stream opens with
 * where they stand, or what it missed since the event it resumes from.
 */
export class Streams {
  constructor(
    private readonly chat: RedisChat,
    private readonly sides: SideChannels,
    private readonly pairing: PairingForStreams,
  ) {
    chat.bus.onMessage(chat.keys.visitorChannelPrefix, (channel, payload) =>
      this.deliver(channel.slice(chat.keys.visitorChannelPrefix.length), payload),
    );
  }

  /** The visitor as this instance holds them, made on first need. */
  localOf(visitorId: string): LocalVisitor {
    let local = this.chat.visitors.get(visitorId);
    if (!local) {
      local = new LocalVisitor(visitorId, (moved) => this.sides.follow(moved));
      this.chat.visitors.set(visitorId, local);
    }
    return local;
  }

  async status(visitorId: string): Promise<ChatStatus> {
    const { status } = await this.chat.poolRun<{ status: PoolStatus }>("status", [visitorId]);
    return publicStatus(status);
  }

  /** What the pool says of a visitor, as this instance keeps it (see LocalVisitor.settle). */
  remember(local: LocalVisitor, status: PoolStatus): void {
    if (status.ip) local.ip = status.ip;
    if (status.country?.name) local.country = countryOf(status.country);
    local.settle(status.state, chatRefOf(status));
  }

  /** A payload a visitor's channel (or their chat side's) carried, handed to their streams. */
  deliver(visitorId: string, payload: string): void {
    const local = this.chat.visitors.get(visitorId);
    if (!local || local.streams.size === 0) return;
    const heard = parsePayload(payload);
    if (heard.checks) {
      local.hear(heard);
      return;
    }
    // A transaction's message in a chat that has ended here (the end came first) or is not
    // known here yet (the stream's first read will have it, if it was kept).
    const announcedIn = unkeptChat(heard.id);
    if (announcedIn !== undefined && local.chat?.id !== announcedIn) return;
    const { event, keep } = heard;
    if (keep && event.type === "matched") {
      if (event.chatId === local.matchedIn) return;
      local.matchedIn = event.chatId;
      local.hear({ checks: true, chat: event.chatId, count: 0, on: keep.checksOn });
      local.settle("chatting", {
        id: event.chatId,
        side: keep.side,
        partner: keep.partner,
        partnerCountry: event.partner,
        self: keep.country,
      });
    }
    local.hear(heard.typing ? { id: heard.id, event, typing: true } : { id: heard.id, event });
  }

  async *events(
    visitorId: string,
    lastEventId: string | null | undefined,
    signal: AbortSignal,
  ): AsyncGenerator<Numbered[], void, undefined> {
    const local = this.localOf(visitorId);
    const stream = new LocalStream();
    local.streams.add(stream);
    const onAbort = () => stream.wake?.();
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      await this.#attach(visitorId, local);
      const opening = (await this.#opening(visitorId, local, lastEventId)).filter((n) =>
        stream.accept(n),
      );
      if (opening.length > 0) yield opening;
      while (!signal.aborted) {
        const batch = stream.queue.splice(0).filter((n) => stream.accept(n));
        if (batch.length > 0) {
          yield batch;
          continue;
        }
        await new Promise<void>((resolve) => {
          stream.wake = resolve;
        });
        stream.wake = undefined;
      }
    } finally {
      signal.removeEventListener("abort", onAbort);
      local.streams.delete(stream);
      if (local.streams.size === 0) await this.#detach(visitorId, local);
    }
  }

  /**
   * The visitor's events in a chat after a stream id ("-": all kept; "$": none, the last id), and
   * after the message `through` when given (a transaction's, whose stream id was not known), led
   * by the chat's checks.
   */
  async read(
    chatId: string,
    visitorId: string,
    from: string,
    through?: string,
  ): Promise<{ lastId: string; events: Queued[] } | undefined> {
    const answer = (await this.chat.chatRun("read", chatId, [visitorId, from])) as string[] | null;
    if (!answer) return undefined;
    const checks: Checks = {
      checks: true,
      chat: chatId,
      count: Number(answer[2]),
      on: answer[3] === "1",
    };
    let events: Numbered[] = [];
    for (let i = 4; i < answer.length; i += 2) {
      events.push({
        id: `${chatId}.${answer[i]}`,
        event: JSON.parse(answer[i + 1] ?? "{}") as ChatEvent,
      });
    }
    if (through !== undefined) {
      const at = events.findIndex(
        ({ event }) => event.type === "message" && event.message.id === through,
      );
      // Not kept any more (or never): everything after the stream id is given.
      if (at !== -1) events = events.slice(at + 1);
    }
    return { lastId: answer[1] ?? "0-0", events: [checks, ...events] };
  }

  /**
   * The subscriptions are back after a lost connection: no transaction's message is taken until
   * a read says where its chat's checks stands (Redis may have come back empty); what was published
   * meanwhile is read from the chats' streams; a visitor whose chat changed meanwhile is told
   * where they stand.
   */
  async catchUp(): Promise<void> {
    for (const local of this.chat.visitors.values()) local.hear(FORGET_CHECKS);
    for (const [visitorId, local] of this.chat.visitors) {
      if (local.streams.size === 0 || !local.attached) continue;
      try {
        await this.catchUpWith(visitorId, local);
      } catch (error) {
        this.chat.fail("catching up after Redis came back", error);
      }
    }
  }

  /**
   * One visitor told where the pool says they stand: what their chat said meanwhile (its end
   * among it, when it ended), then where they stand now, and all of a chat they entered
   * meanwhile (its "matched" first), which they may not have heard.
   */
  async catchUpWith(visitorId: string, local: LocalVisitor): Promise<void> {
    const before = local.chat;
    const { status } = await this.chat.poolRun<{ status: PoolStatus }>("status", [visitorId]);
    const now = chatRefOf(status);
    const missed = before ? await this.read(before.id, visitorId, "-") : undefined;
    const entered =
      now && now.id !== before?.id ? await this.read(now.id, visitorId, "-") : undefined;
    for (const item of missed?.events ?? []) local.hear(item);
    this.remember(local, status);
    for (const item of entered?.events ?? []) local.hear(item);
  }

  /** The first of this instance's streams for a visitor: the pool learns it holds them. */
  #attach(visitorId: string, local: LocalVisitor): Promise<PoolStatus> {
    if (!local.attached) {
      const attached = local.chain.then(async () => {
        await this.chat.bus.subscribe(this.chat.keys.visitorChannel(visitorId));
        const answer = await this.chat.poolRun<{ status: PoolStatus; paired?: Paired }>("attach", [
          visitorId,
          this.chat.newChatId(),
        ]);
        this.remember(local, answer.status);
        this.sides.reserve(local);
        if (answer.paired) await this.pairing.openHere(local, answer.paired);
        return answer.status;
      });
      local.attached = attached;
      local.chain = attached.catch(() => {});
      // A failed attach is tried again by the next stream.
      attached.catch(() => {
        if (local.attached === attached) local.attached = undefined;
      });
    }
    return local.attached;
  }

  /** The last of this instance's streams for a visitor closed. */
  async #detach(visitorId: string, local: LocalVisitor): Promise<void> {
    if (!local.attached) {
      if (local.streams.size === 0) this.#drop(local);
      return;
    }
    local.attached = undefined;
    const detached = local.chain.then(async () => {
      if (local.streams.size > 0 || local.attached || this.chat.closed) return;
      try {
        await this.chat.poolRun("detach", [visitorId]);
      } finally {
        await this.chat.bus.unsubscribe(this.chat.keys.visitorChannel(visitorId)).catch(() => {});
        if (local.streams.size === 0 && !local.attached) this.#drop(local);
      }
    });
    local.chain = detached.catch(() => {});
    await detached.catch((error) => this.chat.fail("chat stream closing", error));
  }

  /** A visitor this instance no longer holds. */
  #drop(local: LocalVisitor): void {
    if (this.chat.visitors.get(local.id) === local) this.chat.visitors.delete(local.id);
    this.sides.drop(local);
  }

  /**
   * What a stream starts with. Resuming from a place in a chat: what followed for the visitor
   * (then, if they are in a newer chat, all of it). Resuming from an event outside any chat: the
   * chat they are in now, whole, or where they stand. Otherwise where they stand, at the chat's
   * last id (so a later resume continues from there).
   */
  async #opening(
    visitorId: string,
    local: LocalVisitor,
    lastEventId: string | null | undefined,
  ): Promise<Queued[]> {
    const resume = parseResume(lastEventId);
    const current = local.chat;
    if (resume && resume !== "outside") {
      const missed = await this.read(resume.chat, visitorId, resume.at, resume.through);
      if (missed) {
        if (current && current.id !== resume.chat) {
          missed.events.push(...((await this.read(current.id, visitorId, "-"))?.events ?? []));
        } else if (!current && local.state === "waiting") {
          missed.events.push({ id: OUTSIDE, event: { type: "waiting" } });
        }
        return missed.events;
      }
    }
    if (resume === "outside" && current) {
      const whole = await this.read(current.id, visitorId, "-");
      if (whole) return whole.events;
    }
    if (current) {
      const last = await this.read(current.id, visitorId, "$");
      return [
        ...(last?.events ?? []),
        {
          id: `${current.id}.${last?.lastId ?? "0-0"}`,
          event: {
            type: "status",
            status: { state: "chatting", chatId: current.id, partner: current.partnerCountry },
          },
        },
      ];
    }
    const state = local.state === "waiting" ? "waiting" : "idle";
    return [{ id: OUTSIDE, event: { type: "status", status: { state } } }];
  }
}
