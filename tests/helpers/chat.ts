import { expect } from "bun:test";
import { type ChatTester, isType } from "./chat-client.ts";

export {
  type ChatTester,
  chatSocket,
  chatTester,
  currentChat,
  isType,
  listening,
  visitorId,
} from "./chat-client.ts";

/** Two listening visitors paired: the first waits, the second is matched with them at once. */
export async function pairListening(a: ChatTester, b: ChatTester): Promise<void> {
  expect(await a.start()).toEqual({ state: "waiting" });
  expect((await b.start()).state).toBe("chatting");
  await a.waitFor(isType("matched"));
  await b.waitFor(isType("matched"));
}
