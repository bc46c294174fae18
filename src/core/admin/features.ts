import type { DB } from "../../../db/schema.ts";
import { DomainError } from "../errors.ts";

/** The parts of the site an operator can switch off for a while. */
export const features = ["chat", "bottles", "publicBottles"] as const;
export type Feature = (typeof features)[number];
export type FeatureStates = Record<Feature, boolean>;

/**
 * The operator's off switches: the settings give each a default (CHAT_ENABLED and the like),
 * and the moderation page can turn one off or on again; every instance reads the database's
 * word every few seconds, so a switch takes effect everywhere within that.
 */
export class FeatureSwitches {
  #states: FeatureStates;
  readonly #listeners = new Set<(states: FeatureStates) => void>();

  constructor(
    private readonly db: DB,
    private readonly defaults: FeatureStates,
  ) {
    this.#states = { ...defaults };
  }

  get states(): FeatureStates {
    return { ...this.#states };
  }

  /**
   * Calls `listener` with the new states whenever a switch flips on this instance (set here, or
   * read from the database by `refresh`). Answers the way to stop listening.
   */
  onChange(listener: (states: FeatureStates) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Refuses a call to a part that is switched off, with a calm "resting" the web shows. */
  require(feature: Feature): void {
    if (!this.#states[feature]) throw new DomainError("FEATURE_RESTING", `${feature} is resting`);
  }

  async refresh(): Promise<void> {
    const rows = await this.db.selectFrom("site_settings").selectAll().execute();
    const next = { ...this.defaults };
    for (const row of rows) {
      const feature = row.key.startsWith("feature:") ? row.key.slice(8) : "";
      if ((features as readonly string[]).includes(feature)) {
        next[feature as Feature] = row.value === "on";
      }
    }
    const flipped = features.some((feature) => next[feature] !== this.#states[feature]);
    this.#states = next;
    if (!flipped) return;
    for (const listener of [...this.#listeners]) {
      try {
        listener({ ...next });
      } catch {
        // One listener's failure must not keep the switch from the others.
      }
    }
  }

  async set(feature: Feature, enabled: boolean, now: number): Promise<void> {
    await storeFeature(this.db, feature, enabled, now);
    await this.refresh();
  }
}

/**
 * Writes an off switch where every instance reads it. Run it in the transaction that records
 * the action, then refresh the switches.
 */
export async function storeFeature(
  trx: DB,
  feature: Feature,
  enabled: boolean,
  now: number,
): Promise<void> {
  const value = enabled ? "on" : "off";
  await trx
    .insertInto("site_settings")
    .values({ key: `feature:${feature}`, value, updated_at: now })
    .onConflict((oc) => oc.column("key").doUpdateSet({ value, updated_at: now }))
    .execute();
}
