import { describe, expect, test } from "bun:test";
import { eventStream } from "../../src/core/chat/events.ts";
import type { MailboxListener, Numbered } from "../../src/core/chat/mailbox.ts";

/** A listen function whose events the test pushes, counting its listeners. */
function source() {
  const listeners = new Set<MailboxListener>();
  let n = 0;
  return {
    listen(onEvent: MailboxListener) {
      listeners.add(onEvent);
      return () => listeners.delete(onEvent);
    },
    push() {
      n += 1;
      const numbered: Numbered = { id: `e:${n}`, event: { type: "waiting" } };
      for (const listener of listeners) listener(numbered);
    },
    get listeners() {
      return listeners.size;
    },
  };
}

describe("eventStream", () => {
  test("nothing listens before the first next; events come in order, all that waited in one batch", async () => {
    const s = source();
    const stream = eventStream(s.listen);
    const ids = async () => ((await stream.next()).value ?? []).map((e) => e.id);
    expect(s.listeners).toBe(0);
    const first = stream.next();
    expect(s.listeners).toBe(1);
    s.push();
    expect(((await first).value ?? []).map((e) => e.id)).toEqual(["e:1"]);
    s.push();
    s.push();
    s.push();
    expect(await ids()).toEqual(["e:2", "e:3", "e:4"]);
    s.push();
    expect(await ids()).toEqual(["e:5"]);
    await stream.return();
    expect(s.listeners).toBe(0);
  });

  test("an abort ends a stream that is waiting for its next event, and stops listening", async () => {
    const s = source();
    const abort = new AbortController();
    const stream = eventStream(s.listen, abort.signal);
    const waiting = stream.next();
    abort.abort();
    expect(await waiting).toEqual({ done: true, value: undefined });
    expect(s.listeners).toBe(0);
  });

  test("a listen that throws fails the first next", async () => {
    const stream = eventStream(() => {
      throw new Error("refused");
    });
    await expect(stream.next()).rejects.toThrow("refused");
  });
});
