import type { DB } from "../../../db/schema.ts";
import { WriteBehind, type WriteBehindOptions } from "../write-behind.ts";

/** One visitor shown one bottle by discover (never its writer), with their country only. */
export interface Find {
  bottleId: number;
  visitorId: string;
  countryCode: string | null;
  foundAt: number;
}

/**
 * Counts finds without slowing discover: a find is noted in memory (one per bottle and visitor,
 * the first one's country kept) and written with the others of the last moment in one
 * statement, insert-or-ignore (see WriteBehind). What reads the finds (My bottles, "your bottle
 * was found") writes this instance's waiting ones first; another instance's arrive within the
 * delay. Discover's own limit decides how many finds a visitor makes.
 */
export class FindCounter {
  readonly #rows: WriteBehind<Find>;

  constructor(
    private readonly db: DB,
    options: WriteBehindOptions = {},
  ) {
    this.#rows = new WriteBehind(
      (finds) => this.#write(finds),
      { keep: "first", rowsPerWrite: 250 },
      options,
    );
  }

  /** Finds noted and not yet handed to a write. */
  get pending(): number {
    return this.#rows.pending;
  }

  /** Resolves once the writes already started are done, starting none. */
  settled(): Promise<void> {
    return this.#rows.settled();
  }

  /** Notes a find; synchronous and never throws, so discover cannot fail for it. */
  note(find: Find): void {
    this.#rows.note(`${find.bottleId} ${find.visitorId}`, find);
  }

  /** Writes every waiting find (after any write under way); resolves once they are stored. */
  flush(): Promise<void> {
    return this.#rows.flush();
  }

  async #write(finds: Find[]): Promise<void> {
    try {
      await this.#insert(finds);
    } catch {
      // A bottle purged a moment ago fails the whole statement on its foreign key: the others
      // are written one by one, and only what cannot be is left uncounted.
      for (const find of finds) {
        await this.#insert([find]).catch(this.#rows.onError);
      }
    }
  }

  #insert(finds: Find[]): Promise<unknown> {
    return this.db
      .insertInto("bottle_finds")
      .values(
        finds.map((find) => ({
          bottle_id: find.bottleId,
          visitor_id: find.visitorId,
          country_code: find.countryCode,
          found_at: find.foundAt,
        })),
      )
      .onConflict((oc) => oc.doNothing())
      .execute();
  }
}
