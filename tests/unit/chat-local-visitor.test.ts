import { describe, expect, test } from "bun:test";
import { UNKNOWN_COUNTRY } from "../../src/common/country.ts";
import { type ChatRef, LocalStream, LocalVisitor } from "../../src/core/chat/redis/local.ts";

const chat = (id: string): ChatRef => ({
  id,
  side: "a",
  partner: `partner of ${id}`,
  partnerCountry: UNKNOWN_COUNTRY,
  self: UNKNOWN_COUNTRY,
});

/** A visitor of this instance with one open stream, in the chat `first`. */
function chatting(first: string) {
  const visitor = new LocalVisitor("visitor", () => {});
  const stream = new LocalStream();
  visitor.streams.add(stream);
  visitor.settle("chatting", chat(first));
  return { visitor, stream };
}

describe("a visitor whose chat was found lost", () => {
  test("is told, and stands idle", () => {
    const { visitor, stream } = chatting("lost-one");
    visitor.lose("lost-one");
    expect(visitor.state).toBe("idle");
    expect(visitor.chat).toBeUndefined();
    expect(stream.queue.map((item) => ("event" in item ? item.event : undefined))).toEqual([
      { type: "status", status: { state: "idle" } },
    ]);
  });

  // Redis came back empty: the check that found the chat gone awaited Redis, and meanwhile the
  // visitor (already told by a send) started again and was paired. That new chat stays.
  test("is not told so once they are in another chat", () => {
    const { visitor, stream } = chatting("lost-one");
    visitor.settle("chatting", chat("new-one"));
    visitor.lose("lost-one");
    expect(visitor.state).toBe("chatting");
    expect(visitor.chat?.id).toBe("new-one");
    expect(stream.queue).toEqual([]);
  });

  test("is not told twice", () => {
    const { visitor, stream } = chatting("lost-one");
    visitor.lose("lost-one");
    visitor.lose("lost-one");
    expect(stream.queue).toHaveLength(1);
  });
});
