import type { DB } from "../../../db/schema.ts";
import type { TargetLanguage } from "../../common/translation.ts";
import { type Translator, translateWithProvider } from "./translator.ts";

/** The cache key: SHA-256 of the exact source text, so the text itself is not stored twice. */
export function sourceHash(text: string): string {
  return new Bun.CryptoHasher("sha256").update(text).digest("hex");
}

/**
 * Where finished translations are kept: a bottle's in the database (until the bottle leaves),
 * a chat message's in memory only, since chat text is never stored outside reports.
 */
export interface TranslationStore {
  get(hash: string, target: TargetLanguage): Promise<string | undefined>;
  put(
    hash: string,
    target: TargetLanguage,
    text: string,
    provider: string,
    now: number,
  ): Promise<void>;
}

/** Translations kept in the `translations` table. */
export function databaseTranslations(db: DB): TranslationStore {
  return {
    async get(hash, target) {
      const hit = await db
        .selectFrom("translations")
        .select("translated_text")
        .where("source_hash", "=", hash)
        .where("target", "=", target)
        .executeTakeFirst();
      return hit?.translated_text;
    },
    async put(hash, target, text, provider, now) {
      await db
        .insertInto("translations")
        .values({ source_hash: hash, target, translated_text: text, provider, created_at: now })
        // Another process sharing the database may have stored the same translation first.
        .onConflict((c) => c.columns(["source_hash", "target"]).doNothing())
        .execute();
    },
  };
}

// Requests for the same text and target that arrive together share one look-up and one call.
const inFlight = new WeakMap<Translator, Map<string, Promise<CachedTranslation>>>();

export interface CachedTranslation {
  text: string;
  /** True when the text came from the store and no provider was asked. */
  cached: boolean;
}

/**
 * Translates through a store: a text already translated into `target` is answered from it and
 * never sent to a provider again.
 */
export function translateCached(
  store: TranslationStore,
  translator: Translator,
  text: string,
  target: TargetLanguage,
  now: number,
): Promise<CachedTranslation> {
  const hash = sourceHash(text);
  const key = `${target}:${hash}`;
  let pending = inFlight.get(translator);
  if (!pending) {
    pending = new Map();
    inFlight.set(translator, pending);
  }
  const joined = pending.get(key);
  if (joined) return joined;
  const calls = pending;
  const call = lookUpOrTranslate(store, translator, text, hash, target, now).finally(() =>
    calls.delete(key),
  );
  calls.set(key, call);
  return call;
}

async function lookUpOrTranslate(
  store: TranslationStore,
  translator: Translator,
  text: string,
  hash: string,
  target: TargetLanguage,
  now: number,
): Promise<CachedTranslation> {
  const hit = await store.get(hash, target);
  if (hit !== undefined) return { text: hit, cached: true };
  const result = await translateWithProvider(translator, text, target);
  await store.put(hash, target, result.text, result.provider, now);
  return { text: result.text, cached: false };
}
