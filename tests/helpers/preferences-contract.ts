import { describe, expect, test } from "bun:test";
import {
  INTEREST_WINDOW_MS,
  MATCH_FALLBACK_MS,
  matchPreferencesInput,
} from "../../src/common/chat-preferences.ts";
import { targetLanguages } from "../../src/common/translation.ts";
import type { ChatBroker, ChatVisitor } from "../../src/core/chat/broker.ts";
import {
  anyoneFrom,
  fitOf,
  type MatchPreferences,
  matchPreferencesOf,
} from "../../src/core/chat/preferences.ts";
import { type BrokerUnderTest, type ContractOptions, open } from "./broker-contract.ts";
import { isType } from "./chat-client.ts";

const INTERESTS = ["hiking", "music", "chess", "cooking", "films", "cats", "travel", "books"];

/** A small random generator of our own, so a failing run can be repeated from its seed. */
function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function visitorWith(id: string, asked: { languages: string[]; interests: string[] }): ChatVisitor {
  const preferences = matchPreferencesOf(matchPreferencesInput.parse(asked));
  return {
    visitorId: id,
    ipKey: `ip-${id}`,
    country: { code: "TW", name: "Taiwan" },
    ...(preferences ? { preferences } : {}),
  };
}

/** Opens a stream, waits for its first status, and presses start asking for these. */
async function joinAsking(
  b: ChatBroker,
  id: string,
  languages: string[],
  interests: string[] = [],
) {
  const stream = open(b, id);
  await stream.waitFor(isType("status"));
  await b.start(visitorWith(id, { languages, interests }));
  return stream;
}

/**
 * Matching by shared language and interest, kept alike by every broker: the best fit first,
 * first come first served within it, never two visitors who share no language while either
 * still insists on one, and everyone paired exactly once in the end.
 */
export function preferencesContract(
  name: string,
  /** The broker's servers cannot be reached here: the suite is skipped. */
  skip: boolean,
  make: (options: ContractOptions) => Promise<BrokerUnderTest>,
): void {
  describe.skipIf(skip)(`${name}: matching by language and interest`, () => {
    test("a shared interest is not given away to the first who shares only a language", async () => {
      const t = await make({ resumeGraceMs: 60_000 });
      const b = t.broker;
      try {
        // A likes origami and waits; C (chess) presses start, then B (origami): A meets B.
        const a = await joinAsking(b, "a", ["en"], ["origami"]);
        const c = await joinAsking(b, "c", ["en"], ["chess"]);
        expect((await b.status("c")).state).toBe("waiting");
        await joinAsking(b, "b", ["en"], ["Origami"]);
        expect(await a.waitFor(isType("matched"))).toMatchObject({
          shared: { languages: ["en"], interests: ["origami"] },
        });
        expect((await b.status("b")).state).toBe("chatting");
        // C meets someone who speaks English once their interest window ends, not before.
        const d = await joinAsking(b, "d", ["en"]);
        await t.advance(INTEREST_WINDOW_MS - 200);
        expect((await b.status("c")).state).toBe("waiting");
        expect((await b.status("d")).state).toBe("waiting");
        await t.advance(300);
        expect(await c.waitFor(isType("matched"))).toMatchObject({
          shared: { languages: ["en"], interests: [] },
        });
        await d.waitFor(isType("matched"));
        // Interests with no language: a shared interest at once, whatever the other speaks...
        const e = await joinAsking(b, "e", [], ["kites"]);
        await joinAsking(b, "f", ["ja"], ["kites"]);
        expect(await e.waitFor(isType("matched"))).toMatchObject({
          shared: { languages: [], interests: ["kites"] },
        });
        // ...and anyone once their window ends.
        const g = await joinAsking(b, "g", [], ["kites"]);
        await joinAsking(b, "h", []);
        expect((await b.status("g")).state).toBe("waiting");
        await t.advance(INTEREST_WINDOW_MS + 100);
        expect(await g.waitFor(isType("matched"))).toMatchObject({
          shared: { languages: [], interests: [] },
        });
      } finally {
        await b.close();
      }
    });

    test("a shared language and interest first, then a language; the longest-waiting within each", async () => {
      const t = await make({ resumeGraceMs: 60_000 });
      const b = t.broker;
      try {
        // Waiting, and sharing no language with each other: English, Japanese, Korean.
        await joinAsking(b, "w1", ["en"], ["chess"]);
        await joinAsking(b, "w2", ["ja"], ["hiking"]);
        await joinAsking(b, "w3", ["ko"], ["Hiking"]);
        // Speaking all three and liking hiking: the first who shares a language and an
        // interest (w2), not the first who shares a language (w1).
        const me = await joinAsking(b, "me", ["en", "ja", "ko"], ["hiking", "cats"]);
        const matched = await me.waitFor(isType("matched"));
        expect(matched).toMatchObject({ shared: { languages: ["ja"], interests: ["hiking"] } });
        expect((await b.status("w2")).state).toBe("chatting");
        // Then a shared language once the interest windows end, first come first served: w1
        // waited longer than w3.
        const next = await joinAsking(b, "next", ["en", "ko"], ["films"]);
        expect((await b.status("next")).state).toBe("waiting");
        await t.advance(INTEREST_WINDOW_MS + 100);
        await next.waitFor(isType("matched"));
        expect((await b.status("w1")).state).toBe("chatting");
        expect((await b.status("w3")).state).toBe("waiting");
        // Anyone is not paired with one still waiting for a shared language...
        const anyone = await joinAsking(b, "anyone", []);
        expect((await b.status("anyone")).state).toBe("waiting");
        // ...until that one widens (or their fallback passes).
        await b.widen("w3");
        const found = await anyone.waitFor(isType("matched"));
        expect(found).toMatchObject({ shared: { languages: [], interests: [] } });
        expect((await b.status("w3")).state).toBe("chatting");
      } finally {
        await b.close();
      }
    });

    test("nobody shares their language: anyone once the fallback delay has passed, not before", async () => {
      const t = await make({ resumeGraceMs: 60_000 });
      const b = t.broker;
      try {
        const ja = await joinAsking(b, "ja", ["ja"], ["音乐"]);
        const ko = await joinAsking(b, "ko", ["ko"], ["音樂", "chess"]);
        await t.advance(MATCH_FALLBACK_MS - 100);
        expect((await b.status("ja")).state).toBe("waiting");
        expect((await b.status("ko")).state).toBe("waiting");
        await t.advance(200);
        // Paired at random after all, and told the interest they happen to share, each in the
        // script they wrote it in.
        const matched = await ja.waitFor(isType("matched"));
        expect(matched).toMatchObject({ shared: { languages: [], interests: ["音乐"] } });
        expect(await ko.waitFor(isType("matched"))).toMatchObject({
          shared: { languages: [], interests: ["音樂"] },
        });
        // One who asked for nothing is not paired with a visitor still insisting on a language...
        const en = await joinAsking(b, "en", ["en"]);
        const anyone = await joinAsking(b, "anyone", []);
        expect((await b.status("anyone")).state).toBe("waiting");
        // ...until that visitor's fallback passes; nothing is shared, and nothing is said.
        await t.advance(MATCH_FALLBACK_MS + 100);
        expect(await anyone.waitFor(isType("matched"))).toMatchObject({
          shared: { languages: [], interests: [] },
        });
        expect(await en.waitFor(isType("matched"))).toMatchObject({
          shared: { languages: [], interests: [] },
        });
        // Two who asked for nothing hear nothing about shared ground.
        const x = await joinAsking(b, "x", []);
        const y = await joinAsking(b, "y", []);
        const plain = await y.waitFor(isType("matched"));
        expect(plain).not.toHaveProperty("shared");
        expect(await x.waitFor(isType("matched"))).not.toHaveProperty("shared");
      } finally {
        await b.close();
      }
    });

    test("past the fallback, anyone is taken first come, first served", async () => {
      const t = await make({ resumeGraceMs: 60_000, meetAgainAfterMs: 60_000 });
      const b = t.broker;
      try {
        // Two who just chatted wait again, kept apart as recent partners: x first, then y.
        await joinAsking(b, "x", []);
        await joinAsking(b, "y", []);
        await b.end("x");
        await b.start(visitorWith("x", { languages: [], interests: [] }));
        await b.start(visitorWith("y", { languages: [], interests: [] }));
        const me = await joinAsking(b, "me", ["fr"], ["chess"]);
        expect((await b.status("me")).state).toBe("waiting");
        await t.advance(MATCH_FALLBACK_MS + 100);
        await me.waitFor(isType("matched"));
        expect((await b.status("x")).state).toBe("chatting");
        expect((await b.status("y")).state).toBe("waiting");
      } finally {
        await b.close();
      }
    });

    test("2,000 starts with random preferences: compatible pairs only until the fallback, then everyone exactly once", async () => {
      const { broker: b } = await make({ resumeGraceMs: 60_000 });
      try {
        const next = random(2026);
        const asked = new Map<string, MatchPreferences | undefined>();
        const ids = Array.from({ length: 2000 }, (_, i) => `v${i}`);
        const streams = ids.map((id) => open(b, id));
        await Promise.all(streams.map((s) => s.waitFor(isType("status"))));
        for (const id of ids) {
          const anyone = next() < 0.2;
          const languages = anyone
            ? []
            : targetLanguages.filter((_, i) => i === 0 || next() < 0.15).slice(0, 3);
          const interests = anyone ? [] : INTERESTS.filter(() => next() < 0.25).slice(0, 5);
          const visitor = visitorWith(id, { languages, interests });
          asked.set(id, visitor.preferences);
          await b.start(visitor);
        }
        const partnerOf = async () => {
          const chats = new Map<string, string[]>();
          for (const id of ids) {
            const status = await b.status(id);
            if (status.state === "chatting") {
              chats.set(status.chatId, [...(chats.get(status.chatId) ?? []), id]);
            }
          }
          return chats;
        };
        // Before anyone's fallback: every pair shares a language, or neither asked for one.
        const seeker = (id: string) => {
          const preferences = asked.get(id);
          return {
            ...(preferences ? { preferences } : {}),
            since: 0,
            anyoneFrom: anyoneFrom(preferences, 0),
          };
        };
        for (const members of (await partnerOf()).values()) {
          expect(members).toHaveLength(2);
          const [x = "", y = ""] = members;
          const fit = fitOf(seeker(x), seeker(y));
          const neitherAsked = seeker(x).anyoneFrom === 0 && seeker(y).anyoneFrom === 0;
          expect(fit > 0 || neitherAsked).toBe(true);
        }
        // Everyone's fallback passes: everyone is paired exactly once.
        for (const id of ids) {
          if ((await b.status(id)).state === "waiting") await b.widen(id);
        }
        const chats = await partnerOf();
        const paired = [...chats.values()].flat();
        expect(new Set(paired).size).toBe(paired.length);
        expect(paired.length).toBe(ids.length);
        for (const stream of streams) stream.stop();
      } finally {
        await b.close();
      }
    }, 60_000);
  });
}
