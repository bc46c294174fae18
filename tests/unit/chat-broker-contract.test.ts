import { InMemoryChatBroker } from "../../src/core/chat/memory-broker.ts";
import { brokerContract } from "../helpers/broker-contract.ts";
import { VirtualClock } from "../helpers/clock.ts";

brokerContract("in memory", false, async (options) => {
  const time = new VirtualClock();
  return {
    broker: new InMemoryChatBroker({ ...options, time }),
    now: time.now,
    advance: async (ms) => time.advance(ms),
  };
});
