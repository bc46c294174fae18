import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import {
  type ChatTester,
  chatTester,
  isType,
  listening,
  pairListening,
} from "../helpers/chat-client.ts";
import { failure, startTestServer, type TestServer } from "../helpers/server.ts";

// Chat switched off while visitors are in it: a site of its own, since the switch is site-wide.
let server: TestServer;
const open: ChatTester[] = [];
beforeAll(async () => {
  server = await startTestServer({ TRUST_PROXY: "true" }, { featureSyncMs: 100 });
});
afterEach(async () => {
  for (const t of open.splice(0)) t.close();
  await server.app.services.features.set("chat", true, Date.now());
});
afterAll(() => server.close());

let addresses = 0;
function tester() {
  const t = chatTester(server.url, { address: `100.65.0.${++addresses}` });
  open.push(t);
  return t;
}

/**
 * Subscribes as the tester's own stream does, also answering when the server ends the stream;
 * resolves once the first status has come.
 */
async function listenToTheEnd(t: ChatTester): Promise<{ ended: Promise<void> }> {
  let ended: Promise<void> = Promise.resolve();
  const started = new Promise<void>((resolveStarted) => {
    ended = new Promise((resolveEnded) => {
      t.api.chat.events.subscribe(undefined, {
        onData(tracked) {
          t.events.push(...tracked.data);
          resolveStarted();
        },
        onComplete: () => resolveEnded(),
      });
    });
  });
  await started;
  return { ended };
}

describe("chat switched off while visitors are in it", () => {
  test("a searcher, both sides of a chat and an idle visitor are told at once; searching stops", async () => {
    const searcher = await listening(tester());
    const [a, b] = [await listening(tester()), await listening(tester())];
    const idle = await listening(tester());
    expect(await searcher.start()).toEqual({ state: "waiting" });
    // The searcher is paired first with whoever comes next; these two pair with each other.
    await searcher.api.chat.end.mutate();
    await pairListening(a, b);
    expect(await searcher.start()).toEqual({ state: "waiting" });

    await server.app.services.features.set("chat", false, Date.now());
    for (const t of [searcher, a, b, idle]) await t.waitFor(isType("resting"));
    // Both ended the usual way (a partner whose own instance has not read the switch yet hears
    // "left"): nobody waits or chats any more.
    expect((await server.app.services.chat.broker.counts()).waiting).toBe(0);
    expect((await server.app.services.chat.broker.counts()).chatting).toBe(0);
    // Nothing comes after "resting"; starting again is refused as resting.
    for (const t of [searcher, a, b, idle]) expect(t.events.at(-1)).toEqual({ type: "resting" });
    expect((await failure(searcher.api.chat.start.mutate())).data.appCode).toBe("FEATURE_RESTING");
  });

  test("switched off on another instance (the shared database), the poll tells the visitors", async () => {
    const searcher = tester();
    const { ended } = await listenToTheEnd(searcher);
    expect(await searcher.start()).toEqual({ state: "waiting" });
    // Another instance writes the switch; this one reads it on its next poll.
    await server.app.services.db
      .insertInto("site_settings")
      .values({ key: "feature:chat", value: "off", updated_at: Date.now() })
      .onConflict((oc) => oc.column("key").doUpdateSet({ value: "off" }))
      .execute();
    await ended;
    expect(searcher.events.at(-1)).toEqual({ type: "resting" });
    expect((await server.app.services.chat.broker.counts()).waiting).toBe(0);
  });

  test("switching another part off leaves the chat alone", async () => {
    const [a, b] = [await listening(tester()), await listening(tester())];
    await pairListening(a, b);
    await server.app.services.features.set("bottles", false, Date.now());
    const sent = await a.api.chat.send.mutate({ content: "still here" });
    await b.waitFor((e) => e.type === "message" && e.message.id === sent.id);
    expect(b.events.some(isType("resting"))).toBe(false);
    await server.app.services.features.set("bottles", true, Date.now());
  });
});
