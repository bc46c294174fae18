import { InMemoryChatBroker } from "../../src/core/chat/memory-broker.ts";
import { brokerContract, type ContractOptions } from "../helpers/broker-contract.ts";
import { VirtualClock } from "../helpers/clock.ts";
import { preferencesContract } from "../helpers/preferences-contract.ts";

const make = async (options: ContractOptions) => {
  const time = new VirtualClock();
  return {
    broker: new InMemoryChatBroker({ ...options, time }),
    now: time.now,
    advance: async (ms: number) => time.advance(ms),
  };
};
brokerContract("in memory", false, make);
preferencesContract("in memory", false, make);
