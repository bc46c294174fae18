import { DomainError } from "../errors.ts";
import { ExpiringMap } from "../limits/expiring-map.ts";
import type { VisitorKeys } from "../requester.ts";
import { nearDuplicate, repeatKey } from "./contacts.ts";

const HOUR = 60 * 60 * 1000;

/** The same text to this many different places (chats, or bottle throws) an hour; more is refused. */
export const REPEATS_PER_HOUR = 3;
/** Shorter texts ("hi", "hello there") are everyday greetings, not spam. */
export const REPEAT_MIN_LENGTH = 10;
/** Refused as spam this often within an hour (bottles or chat), a visitor is muted for an hour. */
export const SPAM_REFUSALS_TO_MUTE = 2;
export const MUTE_MS = HOUR;
/** The recent texts remembered per sender: a spammer repeats one text, not dozens. */
export const TEXTS_PER_SENDER = 8;
/** Senders remembered within one hour's generation before the oldest are let go early. */
const MAX_SENDERS = 100_000;

interface Sent {
  key: string;
  /** The chats (or throws) this text went to within the hour, at most one past the limit. */
  places: string[];
  firstAt: number;
}

/** Who sends: a visitor and their address (IPv6 by /64), each counted on its own. */
export type Sender = VisitorKeys;

/**
 * What the repeat rule needs to punish: a mute, whose messages then reach no one for a while,
 * in chat and in bottles alike (the chat's holds provide it).
 */
export interface Muter {
  /** The visitor's messages, and those of everyone on their address, reach no one until `until`. */
  mute(visitorId: string, ipKey: string, until: number): Promise<void>;
}

/**
 * The texts each sender (visitor, and address) sent lately, to refuse the same text sent to
 * more than REPEATS_PER_HOUR places an hour. Kept in memory, bounded three ways: only texts of
 * REPEAT_MIN_LENGTH or more, TEXTS_PER_SENDER per sender, and senders seen in the last one to two
 * hours (ExpiringMap). Nothing is kept for a text the cheaper checks refused before it got here.
 *
 * Two texts are the same when their repeat keys are near duplicates (see nearDuplicate): one
 * changed character, a zero-width space or a look-alike does not make a new text.
 */
export class RepeatMemory {
  readonly #senders: ExpiringMap<string, Sent[]>;
  readonly #refusals: ExpiringMap<string, { count: number; firstAt: number }>;
  /** The comparisons made for the text being noted: at most two senders' texts, reset per text. */
  readonly #compared = new Map<string, boolean>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly same: (a: string, b: string) => boolean = nearDuplicate,
  ) {
    this.#senders = new ExpiringMap(HOUR, now, MAX_SENDERS);
    this.#refusals = new ExpiringMap(HOUR, now, MAX_SENDERS);
  }

  /**
   * Notes that `sender` sends `text` to `place`; answers the seconds to wait when it already went
   * to REPEATS_PER_HOUR other places within the hour (then nothing is noted), else 0. `key` is
   * the text's repeat key, when the caller has it already.
   */
  note(sender: Sender, text: string, place: string, key = repeatKey(text)): number {
    if (key.length < REPEAT_MIN_LENGTH) return 0;
    const now = this.now();
    this.#compared.clear();
    const visitor = `v:${sender.visitorId}`;
    const address = `ip:${sender.ipKey}`;
    const byVisitor = this.#find(visitor, key, now);
    const byAddress = this.#find(address, key, now);
    const wait = Math.max(
      this.#waitFor(byVisitor, place, now),
      this.#waitFor(byAddress, place, now),
    );
    if (wait > 0) return wait;
    this.#add(visitor, byVisitor, key, place, now);
    this.#add(address, byAddress, key, place, now);
    return 0;
  }

  /** Seconds until `sent` may go to `place` too: 0 unless it reached its places this hour. */
  #waitFor(sent: Sent | undefined, place: string, now: number): number {
    if (!sent || sent.places.includes(place) || sent.places.length < REPEATS_PER_HOUR) return 0;
    return Math.max(1, Math.ceil((sent.firstAt + HOUR - now) / 1000));
  }

  #add(who: string, sent: Sent | undefined, key: string, place: string, now: number): void {
    if (sent) {
      if (!sent.places.includes(place)) sent.places.push(place);
      return;
    }
    const texts = this.#senders.get(who) ?? [];
    texts.unshift({ key, places: [place], firstAt: now });
    if (texts.length > TEXTS_PER_SENDER) texts.length = TEXTS_PER_SENDER;
    this.#senders.set(who, texts);
  }

  /**
   * The sender's record of this text within the hour, moved to the front as most recent. A
   * visitor's texts and their address's are mostly the same strings: a stored key compared a
   * moment ago is answered from #compared, not compared again.
   */
  #find(who: string, key: string, now: number): Sent | undefined {
    const texts = this.#senders.get(who);
    if (!texts) return undefined;
    for (let index = 0; index < texts.length; index++) {
      const sent = texts[index] as Sent;
      if (now - sent.firstAt >= HOUR || !this.#same(sent.key, key)) continue;
      texts.splice(index, 1);
      texts.unshift(sent);
      return sent;
    }
    return undefined;
  }

  #same(stored: string, key: string): boolean {
    let answer = this.#compared.get(stored);
    if (answer === undefined) {
      answer = this.same(stored, key);
      this.#compared.set(stored, answer);
    }
    return answer;
  }

  /** Counts a refusal as spam; true when it is the one that mutes the visitor. */
  refused(visitorId: string): boolean {
    const now = this.now();
    let entry = this.#refusals.get(visitorId);
    if (!entry || now - entry.firstAt >= HOUR) {
      entry = { count: 0, firstAt: now };
      this.#refusals.set(visitorId, entry);
    }
    entry.count += 1;
    return entry.count === SPAM_REFUSALS_TO_MUTE;
  }

  /** Senders remembered now (visitors and addresses), for tests and health. */
  get size(): number {
    return this.#senders.size;
  }

  prune(): void {
    this.#senders.prune();
    this.#refusals.prune();
  }
}

let throws = 0;
/** A bottle throw is a place of its own: the same text thrown four times an hour is refused. */
export function throwPlace(): string {
  throws += 1;
  return `throw:${throws}`;
}

/**
 * Refuses a text sent too often (to more than REPEATS_PER_HOUR places an hour, see RepeatMemory);
 * a visitor refused so SPAM_REFUSALS_TO_MUTE times within the hour is muted for an hour, by
 * visitor and by address.
 */
export async function refuseRepeats(
  deps: { repeats: RepeatMemory; mutes: Muter },
  sender: Sender,
  text: string,
  place: string,
  now: number,
  key = repeatKey(text),
): Promise<void> {
  const wait = deps.repeats.note(sender, text, place, key);
  if (wait === 0) return;
  if (deps.repeats.refused(sender.visitorId)) {
    await deps.mutes.mute(sender.visitorId, sender.ipKey, now + MUTE_MS);
  }
  throw new DomainError("SPAM_REPEATED", "the same text too often", wait);
}
