import type { ChatBroker } from "./broker.ts";

/** Who is here: everyone waiting or chatting, and of them, everyone but the visitor asking. */
export interface OnlineCount {
  count: number;
  others: number;
}

/**
 * The online count as the visitor asking reads it: "1 online" while they wait alone is
 * themselves, so the page says how many others there are.
 */
export async function onlineFor(broker: ChatBroker, visitorId: string): Promise<OnlineCount> {
  const [count, status] = await Promise.all([broker.online(), broker.status(visitorId)]);
  // Read apart, the two may disagree for a moment (a pairing in between): never below none.
  const others = Math.max(0, count - (status.state === "idle" ? 0 : 1));
  return { count, others };
}
