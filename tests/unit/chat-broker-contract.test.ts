import { afterAll, beforeAll, jest } from "bun:test";
import { InMemoryChatBroker } from "../../src/core/chat/memory-broker.ts";
import { brokerContract } from "../helpers/broker-contract.ts";

// The in-memory broker's timers are the global ones: faked here, so the contract moves time by
// hand instead of waiting for it.
beforeAll(() => jest.useFakeTimers());
afterAll(() => jest.useRealTimers());

brokerContract("in memory", async (options) => ({
  broker: new InMemoryChatBroker(options),
  now: () => Date.now(),
  advance: async (ms) => {
    jest.advanceTimersByTime(ms);
  },
}));
