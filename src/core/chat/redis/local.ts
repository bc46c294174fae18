import type { ChatEvent, ChatStatus } from "../../../common/chat.ts";
import { type Country, UNKNOWN_COUNTRY } from "../../../common/country.ts";
import type { Numbered } from "../mailbox.ts";
import { after, type Checks, keptPlace, OUTSIDE, resumableUnkept, unkeptChat } from "./wire.ts";

/** An event as a stream is handed it; typing is not kept, and takes the id before it. */
export type Heard = Numbered & { typing?: true };

/** What a visitor's streams on this instance are handed: events, and their chats' checks. */
export type Queued = Heard | Checks;

/** Forgets every chat's checks: transactions' messages are dropped until a read tells it again. */
export const FORGET_CHECKS: Checks = { checks: true, chat: "", count: 0, on: true };

/** What this instance keeps of a visitor's chat, to relay without asking the pool. */
export interface ChatRef {
  id: string;
  side: "a" | "b";
  partner: string;
  partnerCountry: Country;
  /** The visitor's own country, which their messages carry. */
  self: Country;
}

/**
 * A country as the pool's scripts answer it, from a visitor's fields country_code and
 * country_name: "" where there is none.
 */
export interface PoolCountry {
  code: string;
  name: string;
}

/** What the pool answers of where a visitor stands (lua/pool/presence.ts, status). */
export interface PoolStatus {
  state: "idle" | "waiting" | "chatting";
  chat?: string;
  side?: "a" | "b";
  pt?: string;
  partner_country?: PoolCountry;
  ip?: string;
  country?: PoolCountry;
}

/** A country the pool answers, as the chat carries it ("" is none: unknown). */
export const countryOf = (country: PoolCountry | undefined): Country => ({
  code: country?.code || null,
  name: country?.name || UNKNOWN_COUNTRY.name,
});

/** The chat the pool says a visitor is in, or undefined when it says they are in none. */
export function chatRefOf(status: PoolStatus): ChatRef | undefined {
  if (status.state !== "chatting" || !status.chat) return undefined;
  return {
    id: status.chat,
    side: status.side === "b" ? "b" : "a",
    partner: status.pt ?? "",
    partnerCountry: countryOf(status.partner_country),
    self: countryOf(status.country),
  };
}

/** Where the pool says a visitor stands, as their page is told. */
export function publicStatus(status: PoolStatus): ChatStatus {
  if (status.state === "chatting" && status.chat) {
    return { state: "chatting", chatId: status.chat, partner: countryOf(status.partner_country) };
  }
  return { state: status.state === "waiting" ? "waiting" : "idle" };
}

/** How many chats' checks a stream keeps (a resume reads two: the one it left, the one it is in). */
const CHECKS_KEPT = 2;
/** How many of the last messages a stream remembers, to deliver each once. */
const RECENT_MESSAGES = 16;

/** What each of a visitor's streams is handed: an event of its own (accept rewrites its id). */
const copyFor = (item: Queued): Queued => ("checks" in item ? item : { ...item });

/**
 * Where the visitor stands once an event is heard, when it says: what a stream told last, so
 * that it never tells it twice in a row (a change is told here at once, and the pool or the
 * chat's script says it again a moment later).
 */
function standing(event: ChatEvent): string | undefined {
  switch (event.type) {
    case "idle":
    case "waiting":
      return event.type;
    case "status":
      return event.status.state === "chatting" ? `chat ${event.status.chatId}` : event.status.state;
    case "matched":
      return `chat ${event.chatId}`;
    case "partner-left":
      return "idle";
    case "banned":
      return `banned ${event.until}`;
    default:
      return undefined;
  }
}

/** One open stream on this instance. */
export class LocalStream {
  queue: Queued[] = [];
  wake: (() => void) | undefined;
  /** The last stream id delivered, by chat: what an event must come after. */
  readonly #positions = new Map<string, string>();
  /** The id a stream resumes from: the last event's delivered. */
  #last = OUTSIDE;
  /** The checks of the last chats this stream heard of (see Checks). */
  readonly #checks = new Map<string, Checks>();
  /** The last messages delivered, so one read and announced, or announced twice, comes once. */
  readonly #recent: string[] = [];
  /** Where the events delivered last said the visitor stands (see standing). */
  #standing: string | undefined;

  push(item: Queued): void {
    this.queue.push(item);
    this.wake?.();
  }

  /** Whether the event is new to this stream; notes where it stands. */
  accept(item: Queued): item is Numbered {
    if ("checks" in item) {
      this.#noteChecks(item);
      return false;
    }
    if (item.typing) {
      item.id = this.#last;
      delete item.typing;
      return true;
    }
    const id = item.id;
    const announcedIn = unkeptChat(id);
    // Announced by a transaction: kept only if the chat's checks were off (see Checks).
    if (announcedIn !== undefined && (this.#checks.get(announcedIn)?.on ?? true)) return false;
    const stands = standing(item.event);
    if (stands !== undefined && stands === this.#standing && item.event.type !== "matched") {
      return false;
    }
    const message = item.event.type === "message" ? item.event.message.id : undefined;
    if (message !== undefined) {
      if (this.#recent.includes(message)) return false;
      if (this.#recent.push(message) > RECENT_MESSAGES) this.#recent.shift();
    }
    if (announcedIn !== undefined) {
      item.id = resumableUnkept(id, this.#positions.get(announcedIn));
      this.#last = item.id;
      return true;
    }
    const place = keptPlace(id);
    if (place) {
      const seen = this.#positions.get(place.chat);
      if (seen !== undefined && !after(place.at, seen)) return false;
      this.#positions.set(place.chat, place.at);
    }
    this.#last = id;
    this.#standing = stands ?? this.#standing;
    return true;
  }

  #noteChecks(checks: Checks): void {
    if (checks === FORGET_CHECKS) {
      this.#checks.clear();
      return;
    }
    const known = this.#checks.get(checks.chat);
    if (known && checks.count < known.count) return;
    this.#checks.delete(checks.chat);
    this.#checks.set(checks.chat, checks);
    const oldest = this.#checks.keys().next().value;
    if (this.#checks.size > CHECKS_KEPT && oldest !== undefined) this.#checks.delete(oldest);
  }
}

/**
 * A visitor with streams open on this instance. Where they stand (`state`, `chat`) changes only
 * through `hear` (an event, handed to every open stream of theirs in the same step) and
 * `settle` (what the pool or a read says, told to every stream as a status when the page would
 * draw it differently), so no path can change it without their pages hearing.
 */
export class LocalVisitor {
  readonly streams = new Set<LocalStream>();
  #state: PoolStatus["state"] = "idle";
  #chat: ChatRef | undefined;
  /** On a Cluster: the side channel of their chat this instance subscribes to for them. */
  following: string | undefined;
  /** What that channel carried while what came before the subscription is read. */
  held: string[] | undefined;
  /**
   * On a Cluster: a chat id whose side "a" channel this instance subscribed for them ahead of
   * time (ready once subscribed). Passed with their start, it names the chat someone is paired
   * with them in while they wait, so nothing of it has to be read back (see SideChannels).
   */
  reserved: { chat: string; channel: string; ready: boolean } | undefined;
  /** The last chat whose "matched" reached them here (it may come on two channels). */
  matchedIn: string | undefined;
  /** Their address and country, as last known (to say again after Redis restarted). */
  ip = "";
  country: Country = UNKNOWN_COUNTRY;
  /**
   * What they asked for when they last pressed start, as the pool keeps it (when anyone will do,
   * languages, interest keys, JSON): said again with them if Redis restarts while they wait.
   */
  asked: [anyone: number, languages: string, interests: string, json: string] | undefined;
  /** Attached in the pool from this instance (resolves once the pool knows). */
  attached: Promise<PoolStatus> | undefined;
  /** Attach and detach of one visitor happen in turn. */
  chain: Promise<unknown> = Promise.resolve();

  constructor(
    readonly id: string,
    /** Told when their chat changes (on a Cluster its side channel is followed). */
    private readonly moved: (local: LocalVisitor) => void,
  ) {}

  get chat(): ChatRef | undefined {
    return this.#chat;
  }
  get state(): PoolStatus["state"] {
    return this.#state;
  }

  #set(state: PoolStatus["state"], chat: ChatRef | undefined): void {
    const before = this.#chat;
    this.#state = state;
    this.#chat = chat;
    if (before?.id !== chat?.id || before?.side !== chat?.side) this.moved(this);
  }

  /**
   * An event (or a chat's checks) for every open stream of theirs; what it says of where they
   * stand is kept. An event of an older chat than theirs changes nothing here.
   */
  hear(item: Queued): void {
    if (!("checks" in item)) {
      const { event, id } = item;
      const chatOfId = keptPlace(id)?.chat;
      switch (event.type) {
        case "waiting":
          // Older news than the chat they are in: on a Cluster "matched" comes on the chat's
          // own channel and can overtake the start's "waiting" on theirs.
          if (this.#chat) return;
          this.#set("waiting", undefined);
          break;
        case "idle":
        case "banned":
        case "partner-left":
          if (!chatOfId || chatOfId === this.#chat?.id) this.#set("idle", undefined);
          break;
        case "status":
          this.#set(event.status.state, event.status.state === "chatting" ? this.#chat : undefined);
          break;
        default:
          break;
      }
    }
    for (const stream of this.streams) stream.push(copyFor(item));
  }

  /**
   * Where the pool (or a read) says they stand, kept. Leaving a chat, or a search, without an
   * event that says so is told to their streams as a status: a chat that ends so ends as lost
   * on their pages. Entering a chat is told by its "matched", which the chat's opening sends
   * to both sides.
   */
  /**
   * Their chat `chatId` was found lost: told so, unless they have left it meanwhile. The finding
   * awaited Redis, and a visitor who started again since must not hear their new chat end.
   */
  lose(chatId: string): void {
    if (this.#chat?.id === chatId) this.settle("idle");
  }

  settle(state: PoolStatus["state"], chat?: ChatRef): void {
    if (chat) {
      this.#set(state, chat);
      return;
    }
    const now = state === "waiting" ? "waiting" : "idle";
    if (!this.#chat && this.#state === now) return;
    this.hear({ id: OUTSIDE, event: { type: "status", status: { state: now } } });
  }
}
