import { skeleton } from "./contact-text.ts";

/**
 * A text as repeats are told apart: NFKC, invisible characters gone, look-alikes folded
 * ("bսy" is "buy"), case folded, and without spaces, punctuation and symbols, so "Buy NOW!!!",
 * "buy now" and "b​uy now" are the same text.
 */
export function repeatKey(text: string): string {
  return skeleton(text);
}

/** Keys up to this long are compared by edit distance; longer ones by the shingles they share. */
export const SHORT_KEY = 64;
/** One edit is allowed per this many characters of the longer key: none below 10. */
export const CHARACTERS_PER_EDIT = 10;
/** Longer keys are near duplicates when at least this share of their shingles is common. */
export const SHARED_SHINGLES = 0.75;
// Three characters: short enough for Chinese (no spaces between words), long enough that two
// different sentences in Latin letters share few.
const SHINGLE = 3;
const SIGNATURE_SIZE = 64;
const NO_SIGNATURE = new Uint32Array(0);

/** A text's repeat key and, for a long one, its shingle signature, computed once to be stored. */
export interface TextFingerprint {
  key: string;
  /** The smallest hashes of the key's shingles, ascending (empty for a short key). */
  signature: Uint32Array;
}

export function textFingerprint(text: string): TextFingerprint {
  const key = repeatKey(text);
  return { key, signature: key.length > SHORT_KEY ? minHashSignature(key) : NO_SIGNATURE };
}

/**
 * Whether two texts are the same text for the repeat rules: equal keys; for short ones, within
 * one edit per ten characters (so one changed character in "buy cheap pills here" is the same
 * text, and "hello sea" and "hello see", under ten, stay two); for long ones, most shingles in
 * common (a MinHash bottom-k estimate), so a word swapped or added does not make a new text.
 */
export function sameText(a: TextFingerprint, b: TextFingerprint): boolean {
  if (a.key === b.key) return true;
  const longer = Math.max(a.key.length, b.key.length);
  if (longer <= SHORT_KEY) {
    return withinEdits(a.key, b.key, Math.floor(longer / CHARACTERS_PER_EDIT));
  }
  const shorter = Math.min(a.key.length, b.key.length);
  // Shingles in common cannot reach the share when one key is much shorter than the other.
  if (shorter < longer * SHARED_SHINGLES) return false;
  return sharedShingles(signatureOf(a), signatureOf(b)) >= SHARED_SHINGLES;
}

/**
 * sameText on two repeat keys (see repeatKey). A caller that keeps keys rather than
 * fingerprints compares each new key with the same few stored ones again and again, so the
 * signatures of the last SIGNATURES_KEPT long keys are kept.
 */
export function nearDuplicate(a: string, b: string): boolean {
  return sameText(keyFingerprint(a), keyFingerprint(b));
}

const SIGNATURES_KEPT = 1024;
const signatures = new Map<string, Uint32Array>();

function keyFingerprint(key: string): TextFingerprint {
  if (key.length <= SHORT_KEY) return { key, signature: NO_SIGNATURE };
  let signature = signatures.get(key);
  if (!signature) {
    signature = minHashSignature(key);
    // Bounded: the oldest key goes first (a Map keeps insertion order).
    if (signatures.size >= SIGNATURES_KEPT) {
      const oldest = signatures.keys().next().value;
      if (oldest !== undefined) signatures.delete(oldest);
    }
    signatures.set(key, signature);
  }
  return { key, signature };
}

function signatureOf(fingerprint: TextFingerprint): Uint32Array {
  return fingerprint.signature.length > 0
    ? fingerprint.signature
    : minHashSignature(fingerprint.key);
}

// Two rows of the band, grown as longer keys come and reused: one comparison per stored text
// runs for every chat message, and allocating for each would cost more than comparing.
let previousRow = new Uint16Array(SHORT_KEY + 2);
let currentRow = new Uint16Array(SHORT_KEY + 2);

/**
 * Levenshtein distance of at most `limit`, computed in a band of width 2·limit + 1 around the
 * diagonal (only its cells are written or read) and given up as soon as a row's band exceeds
 * the limit.
 */
export function withinEdits(a: string, b: string, limit: number): boolean {
  if (a === b) return true;
  if (limit <= 0 || Math.abs(a.length - b.length) > limit) return false;
  const beyond = limit + 1;
  if (previousRow.length < b.length + 2) {
    previousRow = new Uint16Array(b.length + 2);
    currentRow = new Uint16Array(b.length + 2);
  }
  let previous = previousRow;
  let current = currentRow;
  const first = Math.min(limit, b.length);
  for (let j = 0; j <= first; j++) previous[j] = j;
  previous[first + 1] = beyond;
  for (let i = 1; i <= a.length; i++) {
    const from = Math.max(1, i - limit);
    const to = Math.min(b.length, i + limit);
    // The cell left of the band, and the one right of it that the next row reads.
    current[from - 1] = from === 1 && i <= limit ? i : beyond;
    current[to + 1] = beyond;
    let best = current[from - 1] as number;
    const ai = a.charCodeAt(i - 1);
    for (let j = from; j <= to; j++) {
      const substitute = (previous[j - 1] as number) + (ai === b.charCodeAt(j - 1) ? 0 : 1);
      const remove = (previous[j] as number) + 1;
      const insert = (current[j - 1] as number) + 1;
      const cost = Math.min(substitute, remove, insert, beyond);
      current[j] = cost;
      if (cost < best) best = cost;
    }
    if (best > limit) return false;
    [previous, current] = [current, previous];
  }
  return (previous[b.length] as number) <= limit;
}

/**
 * The SIGNATURE_SIZE smallest distinct hashes of the key's three-character shingles (a
 * bottom-k MinHash sketch: one hash per shingle instead of one per permutation).
 */
export function minHashSignature(key: string): Uint32Array {
  const characters = Array.from(key);
  const count = Math.max(1, characters.length - SHINGLE + 1);
  const hashes = new Uint32Array(count);
  for (let i = 0; i < count; i++) {
    let hash = 0x811c9dc5;
    for (let j = i; j < Math.min(i + SHINGLE, characters.length); j++) {
      const code = characters[j]?.codePointAt(0) ?? 0;
      hash = Math.imul(hash ^ code, 0x01000193);
    }
    hashes[i] = mix(hash);
  }
  hashes.sort();
  const signature = new Uint32Array(Math.min(SIGNATURE_SIZE, count));
  let size = 0;
  for (let i = 0; i < hashes.length && size < signature.length; i++) {
    const hash = hashes[i] ?? 0;
    if (size === 0 || signature[size - 1] !== hash) signature[size++] = hash;
  }
  return signature.subarray(0, size);
}

/** MurmurHash3's finaliser: spreads FNV's low bits so the smallest hashes are a fair sample. */
function mix(value: number): number {
  let hash = value;
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

/**
 * The estimated share of shingles two keys have in common (Jaccard): of the smallest hashes of
 * both sketches together, the part found in both.
 */
export function sharedShingles(a: Uint32Array, b: Uint32Array): number {
  const size = Math.min(SIGNATURE_SIZE, Math.max(a.length, b.length));
  let i = 0;
  let j = 0;
  let taken = 0;
  let common = 0;
  while (taken < size && (i < a.length || j < b.length)) {
    const x = i < a.length ? (a[i] ?? 0) : Number.POSITIVE_INFINITY;
    const y = j < b.length ? (b[j] ?? 0) : Number.POSITIVE_INFINITY;
    if (x === y) {
      common++;
      i++;
      j++;
    } else if (x < y) {
      i++;
    } else {
      j++;
    }
    taken++;
  }
  return taken === 0 ? 1 : common / taken;
}
