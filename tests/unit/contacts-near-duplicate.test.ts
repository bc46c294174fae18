import { describe, expect, test } from "bun:test";
import {
  nearDuplicate,
  repeatKey,
  sameText,
  textFingerprint,
} from "../../src/core/moderation/contacts.ts";
import {
  minHashSignature,
  SHORT_KEY,
  sharedShingles,
  withinEdits,
} from "../../src/core/moderation/near-duplicate.ts";

const same = (a: string, b: string) => nearDuplicate(repeatKey(a), repeatKey(b));

const SPAM =
  "Hot singles in your area want to meet you tonight, click the link in my profile and sign up for free now";
const WALK =
  "I walked along the shore this morning and the tide was further out than I have ever seen it. " +
  "There were crabs everywhere, and a little girl kept naming each one after her classmates.";
const 散步 =
  "今天早上沿著海邊散步，潮水退得比平常還遠，沙灘上到處都是小螃蟹。後來下起雨，我就躲進碼頭旁的咖啡店。";

describe("repeat keys", () => {
  test("a zero-width space, a look-alike, case and punctuation do not change the key", () => {
    expect(repeatKey("buy cheap pills here")).toBe(repeatKey("Buy cheap\u200b pills here!!!"));
    expect(repeatKey("buy cheap pills here")).toBe(repeatKey("bսy сheap pіlls here"));
    expect(repeatKey("ＢＵＹ　ｎｏｗ")).toBe(repeatKey("buy now"));
    expect(repeatKey("你好，世界！")).toBe(repeatKey("你好 世界"));
  });
  test("the key is the text in lower case without spaces or punctuation", () => {
    expect(repeatKey("Buy NOW!!! Straße")).toBe("buynowstraße");
  });
  test("Chinese is not folded to Latin", () => {
    expect(repeatKey("七下丁山")).toBe("七下丁山");
  });
});

describe("near duplicates", () => {
  test("one changed character does not make a new text, short or long", () => {
    expect(same("buy cheap pills here", "buy cheap pilks here")).toBe(true);
    expect(same(SPAM, SPAM.replace("tonight", "tonite"))).toBe(true);
    expect(same(WALK, WALK.replace("crabs", "crab5"))).toBe(true);
    expect(same(散步, 散步.replace("咖啡店", "咖啡廳"))).toBe(true);
  });

  test("a zero-width space, a look-alike or added symbols do not make a new text", () => {
    expect(same(SPAM, SPAM.replace("profile", "pro\u200bfile"))).toBe(true);
    expect(same(SPAM, SPAM.replace("area", "аrеа"))).toBe(true);
    expect(same(SPAM, `${SPAM}!! ❤️❤️`)).toBe(true);
  });

  test("a word added or sentences swapped in a long text do not make a new text", () => {
    expect(same(SPAM, SPAM.replace("for free", "for free today"))).toBe(true);
    const [first, second] = WALK.split(". ");
    expect(same(WALK, `${second}. ${first}.`)).toBe(true);
  });

  test("short greetings one letter apart stay two texts", () => {
    // Under ten characters of key no edit is allowed: one letter is often the whole difference
    // ("hello sea", "hello see"), and the send path does not count repeats that short.
    expect(same("hello sea", "hello see")).toBe(false);
    expect(same("hi there", "hi where")).toBe(false);
    expect(same("hello sea", "Hello, sea!")).toBe(true);
  });

  test("genuinely different sentences stay different", () => {
    expect(same("I love cats so much", "I love dogs so much")).toBe(false);
    expect(
      same(
        "Hi! I'm Mei from Taipei and I love the sea, long walks on the beach and old films. What about you?",
        "Hi! I'm Lin from Tainan and I love the mountains, long hikes in the forest and new music. What about you?",
      ),
    ).toBe(false);
    expect(
      same(
        "The weather has been so strange this week, sunny in the morning and then pouring rain every afternoon",
        "The weather has been so strange this month, cold in the morning and then warm and sunny every afternoon",
      ),
    ).toBe(false);
    expect(
      same(
        散步,
        "昨天晚上我在家裡看電影，是一部很老的法國片，劇情有點慢但是畫面很美，看完之後我就去睡覺了。",
      ),
    ).toBe(false);
    expect(same(WALK, WALK.slice(0, WALK.length / 2))).toBe(false);
  });

  test("fingerprints compare as the texts do", () => {
    const texts = [SPAM, SPAM.replace("tonight", "tonite"), WALK, 散步, "hello sea", "hello see"];
    for (const a of texts) {
      for (const b of texts) {
        expect(sameText(textFingerprint(a), textFingerprint(b))).toBe(same(a, b));
      }
    }
    expect(textFingerprint("hello sea").signature.length).toBe(0);
    expect(textFingerprint(SPAM).signature.length).toBeGreaterThan(0);
  });
});

describe("the comparisons", () => {
  function levenshtein(a: string, b: string): number {
    let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
      const current = [i];
      for (let j = 1; j <= b.length; j++) {
        current[j] = Math.min(
          (previous[j] ?? 0) + 1,
          (current[j - 1] ?? 0) + 1,
          (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
        );
      }
      previous = current;
    }
    return previous[b.length] ?? 0;
  }

  test("the banded edit distance agrees with the full one", () => {
    let seed = 7;
    const random = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed >>> 8) % n;
    };
    const word = () =>
      Array.from({ length: random(SHORT_KEY) }, () => "abc"[random(3)] ?? "a").join("");
    for (let i = 0; i < 2000; i++) {
      const a = word();
      const b = random(2) === 0 ? word() : a.slice(0, random(a.length + 1)) + word().slice(0, 3);
      const limit = random(7);
      expect(withinEdits(a, b, limit)).toBe(levenshtein(a, b) <= limit);
    }
  });

  test("the shingle estimate is close to the true share", () => {
    const shingles = (key: string) =>
      new Set(Array.from({ length: key.length - 2 }, (_, i) => key.slice(i, i + 3)));
    const a = repeatKey(SPAM);
    const b = repeatKey(SPAM.replace("in my profile", "in my bio").replace("free", "nothing"));
    const sa = shingles(a);
    const sb = shingles(b);
    const common = [...sa].filter((shingle) => sb.has(shingle)).length;
    const jaccard = common / (sa.size + sb.size - common);
    const estimate = sharedShingles(minHashSignature(a), minHashSignature(b));
    expect(Math.abs(estimate - jaccard)).toBeLessThan(0.15);
  });
});

describe("the banded edit distance", () => {
  /** The whole Levenshtein table: slow and plain, the answer the band must give. */
  function distance(a: string, b: string): number {
    let row = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
      const next = [i];
      for (let j = 1; j <= b.length; j++) {
        const substitute = (row[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
        next[j] = Math.min(substitute, (row[j] ?? 0) + 1, (next[j - 1] ?? 0) + 1);
      }
      row = next;
    }
    return row[b.length] ?? 0;
  }

  test("agrees with the whole table on thousands of pairs, at every limit", () => {
    // A fixed sequence, so a failure names a pair that fails again.
    let seed = 12345;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const word = (length: number) => Array.from({ length }, () => "abc"[random(3)]).join("");
    const mutate = (text: string) => {
      const at = random(text.length + 1);
      const kind = random(3);
      const letter = "abcd"[random(4)];
      if (kind === 0) return text.slice(0, at) + letter + text.slice(at);
      if (kind === 1) return text.slice(0, at) + text.slice(at + 1);
      return text.slice(0, at) + letter + text.slice(at + 1);
    };
    for (let n = 0; n < 3000; n++) {
      const a = word(random(30));
      let b = a;
      for (let edits = random(6); edits > 0; edits--) b = mutate(b);
      if (random(4) === 0) b = word(random(30));
      const limit = random(6);
      const expected = distance(a, b) <= limit;
      if (withinEdits(a, b, limit) !== expected) {
        expect(`${a} ${b} ${limit}: ${!expected}`).toBe(`${a} ${b} ${limit}: ${expected}`);
      }
    }
    // Longer than the rows were made for at first: they grow.
    const long = "ab".repeat(60);
    expect(withinEdits(long, `${long}c`, 1)).toBe(true);
    expect(withinEdits(long, `c${long}cc`, 2)).toBe(false);
  });
});

describe("where the comparisons change", () => {
  /** A key of `length` letters whose three-letter shingles are all different. */
  function distinctKey(length: number, seed: number): string {
    let state = seed;
    let key = "";
    while (key.length < length) {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      key += "abcdefghijklmnopqrstuvwxyz"[(state >>> 8) % 26];
    }
    return key;
  }
  const repeated = (unit: string, length: number) =>
    unit.repeat(Math.ceil(length / unit.length)).slice(0, length);

  test("edits are allowed per ten characters of the longer key, not the shorter", () => {
    // Ten and nine characters: one edit is allowed, since the longer has ten.
    expect(nearDuplicate("abcdefghij", "abcdefghi")).toBe(true);
    expect(nearDuplicate("abcdefghi", "abcdefghij")).toBe(true);
    expect(nearDuplicate("abcdefghi", "abcdefgh")).toBe(false);
  });

  test(`a key of ${SHORT_KEY} characters is still compared by edits, and has no signature`, () => {
    const key = distinctKey(SHORT_KEY, 3);
    // Six letters changed, far apart: within the six edits allowed, though most shingles differ.
    let changed = key;
    for (const at of [2, 13, 24, 35, 46, 57]) {
      changed = `${changed.slice(0, at)}${changed[at] === "z" ? "y" : "z"}${changed.slice(at + 1)}`;
    }
    expect(sharedShingles(minHashSignature(key), minHashSignature(changed))).toBeLessThan(0.75);
    expect(nearDuplicate(key, changed)).toBe(true);
    expect(textFingerprint(key).signature.length).toBe(0);
    expect(textFingerprint(`${key}a`).signature.length).toBeGreaterThan(0);
  });

  test("a long key is the same text at three quarters of its shingles in common", () => {
    // Keys of one repeated unit: their shingles are few and known, so the share is exact.
    const a = repeated("bdb", 80);
    const b = repeated("dbbbb", 80);
    expect(sharedShingles(minHashSignature(a), minHashSignature(b))).toBe(0.75);
    expect(nearDuplicate(a, b)).toBe(true);
    expect(sameText(textFingerprint(a), textFingerprint(b))).toBe(true);
  });

  test("a long key three quarters as long as the other is still compared", () => {
    expect(nearDuplicate(repeated("abcde", 100), repeated("abcde", 75))).toBe(true);
  });

  test("a signature holds one hash per distinct shingle, each the shingle's own", () => {
    expect(minHashSignature("abcdef")).toHaveLength(4);
    // Repeated shingles are one hash.
    expect(minHashSignature("abcabcabc")).toHaveLength(3);
    expect(minHashSignature("abc")).toHaveLength(1);
    // "abcd" is made of the shingles "abc" and "bcd", and of nothing else.
    const both = [...minHashSignature("abc"), ...minHashSignature("bcd")].sort((x, y) => x - y);
    expect([...minHashSignature("abcd")]).toEqual(both);
    // At most the 64 smallest.
    const long = distinctKey(200, 11);
    const signature = minHashSignature(long);
    expect(signature).toHaveLength(64);
    expect([...signature]).toEqual([...signature].sort((x, y) => x - y));
  });

  test("the shared share is counted among as many of the smallest hashes as the larger sketch holds", () => {
    const sketch = (...hashes: number[]) => Uint32Array.from(hashes);
    expect(sharedShingles(sketch(1, 2, 3), sketch(1, 2, 4))).toBeCloseTo(2 / 3);
    expect(sharedShingles(sketch(1), sketch(1, 2, 3))).toBeCloseTo(1 / 3);
    expect(sharedShingles(sketch(1, 2, 3), sketch(1))).toBeCloseTo(1 / 3);
    // 9 is past the four smallest of both: it is not counted.
    expect(sharedShingles(sketch(1, 2, 3, 9), sketch(1, 2, 3, 4))).toBe(0.75);
    expect(sharedShingles(sketch(), sketch())).toBe(1);
  });
});
