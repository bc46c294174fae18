import type { DB } from "../../../db/schema.ts";
import type { TargetLanguage } from "../../common/translation.ts";
import { type Translator, translateWithProvider } from "./translator.ts";

/** The cache key: SHA-256 of the exact source text, so the text itself is not stored twice. */
export function sourceHash(text: string): string {
  return new Bun.CryptoHasher("sha256").update(text).digest("hex");
}

// Requests for the same text and target that arrive together share one look-up and one call.
const inFlight = new WeakMap<Translator, Map<string, Promise<CachedTranslation>>>();

export interface CachedTranslation {
  text: string;
  /** True when the text came from the database and no provider was asked. */
  cached: boolean;
}

/**
 * Translates through the cache: a text already translated into `target` is answered from the
 * database and never sent to a provider again.
 */
export function translateCached(
  db: DB,
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
  const call = lookUpOrTranslate(db, translator, text, hash, target, now).finally(() =>
    calls.delete(key),
  );
  calls.set(key, call);
  return call;
}

async function lookUpOrTranslate(
  db: DB,
  translator: Translator,
  text: string,
  hash: string,
  target: TargetLanguage,
  now: number,
): Promise<CachedTranslation> {
  const hit = await db
    .selectFrom("translations")
    .select("translated_text")
    .where("source_hash", "=", hash)
    .where("target", "=", target)
    .executeTakeFirst();
  if (hit) return { text: hit.translated_text, cached: true };

  const result = await translateWithProvider(translator, text, target);
  await db
    .insertInto("translations")
    .values({
      source_hash: hash,
      target,
      translated_text: result.text,
      provider: result.provider,
      created_at: now,
    })
    // Another process sharing the database may have stored the same translation first.
    .onConflict((c) => c.columns(["source_hash", "target"]).doNothing())
    .execute();
  return { text: result.text, cached: false };
}
