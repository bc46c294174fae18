import { latestHold } from "./holds.ts";

/**
 * An instance's copy of the mutes in force, by "visitor:<id>" and "ip:<key>" (the pool's mutes
 * on Redis), kept from what every instance announces when it mutes, so the rules a chat message
 * goes through read it without asking Redis. Each entry leaves once its mute ends. Bounded: a
 * copy that could not take a mute is incomplete, and says so (`undefined`), until a reload from
 * Redis finds room for all of them again.
 */
export class MuteCopy {
  readonly #until = new Map<string, number>();
  /** Whether every mute in force is here (not before a reload has ended, nor after a refusal). */
  #complete = false;
  /** A mute was refused for want of room since the last reload began. */
  #refused = false;

  constructor(private readonly max: number) {}

  get size(): number {
    return this.#until.size;
  }

  /** Incomplete, with room again: a reload would make it whole. */
  get wantsReload(): boolean {
    return !this.#complete && this.#until.size < this.max / 2;
  }

  note(key: string, until: number, now: number): void {
    if (!(until > now)) return;
    const before = this.#until.get(key);
    if (before === undefined && this.#until.size >= this.max) {
      this.#refused = true;
      this.#complete = false;
      return;
    }
    if (before === undefined || until > before) this.#until.set(key, until);
  }

  /**
   * When the latest mute on these keys ends, null when none is in force, or undefined when the
   * copy cannot tell (ask Redis).
   */
  until(keys: readonly string[], now: number): number | null | undefined {
    if (!this.#complete) return undefined;
    return latestHold(this.#until, keys, now);
  }

  /** Forgets the mutes that have ended. */
  prune(now: number): void {
    for (const [key, until] of this.#until) if (until <= now) this.#until.delete(key);
  }

  /**
   * Takes in every mute Redis holds (announcements arriving meanwhile are taken as usual); the
   * copy is complete afterwards if it had room for all of them.
   */
  async reload(
    read: () => AsyncIterable<[key: string, until: number]>,
    now: () => number,
  ): Promise<void> {
    this.#complete = false;
    this.#refused = false;
    this.prune(now());
    for await (const [key, until] of read()) this.note(key, until, now());
    this.#complete = !this.#refused;
  }
}
