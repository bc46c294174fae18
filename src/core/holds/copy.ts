/**
 * An instance's copy of keyed holds in force (a ban or a mute on "visitor:<id>" or "ip:<key>"),
 * each kept until it ends, so the hot checks read it without asking Redis. Bounded: a copy that
 * could not take a hold is incomplete, and says so (`undefined`: ask Redis), until a reload
 * finds room for all of them again. A copy is incomplete until its first reload has ended.
 */
export class HoldCopy {
  readonly #until = new Map<string, number>();
  /** Whether every hold in force is here (not before a reload has ended, nor after a refusal). */
  #complete = false;
  /** A hold was refused for want of room since the last reload began. */
  #refused = false;

  constructor(private readonly max: number) {}

  get size(): number {
    return this.#until.size;
  }

  /** Incomplete, with room again: a reload would make it whole. */
  get wantsReload(): boolean {
    return !this.#complete && this.#until.size < this.max / 2;
  }

  /** When the hold on this key ends as this copy has it (ended or not), if it has it. */
  known(key: string): number | undefined {
    return this.#until.get(key);
  }

  /** Takes a hold; of two on one key the later end stands (a hold is never shortened here). */
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

  /** Lets go of the holds on these keys (lifted). */
  lift(keys: readonly string[]): void {
    for (const key of keys) this.#until.delete(key);
  }

  /**
   * When the latest hold on these keys ends, null when none is in force, or undefined when the
   * copy cannot tell (ask Redis). Ended holds met on the way are forgotten.
   */
  until(keys: readonly string[], now: number): number | null | undefined {
    if (!this.#complete) return undefined;
    let latest: number | null = null;
    for (const key of keys) {
      const until = this.#until.get(key);
      if (until === undefined) continue;
      if (until <= now) this.#until.delete(key);
      else latest = Math.max(latest ?? 0, until);
    }
    return latest;
  }

  /** Forgets the holds that have ended. */
  prune(now: number): void {
    for (const [key, until] of this.#until) if (until <= now) this.#until.delete(key);
  }

  /**
   * Takes in every hold the source has (news arriving meanwhile is taken as usual); the copy is
   * complete afterwards if it had room for all of them. A copy complete when the reload begins
   * stays so throughout unless a hold is refused: news kept it whole.
   */
  async reload(
    read: () => AsyncIterable<[key: string, until: number]>,
    now: () => number,
  ): Promise<void> {
    this.#refused = false;
    this.prune(now());
    for await (const [key, until] of read()) this.note(key, until, now());
    this.#complete = !this.#refused;
  }
}
