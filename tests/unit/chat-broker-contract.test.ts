import { InMemoryChatBroker } from "../../src/core/chat/memory-broker.ts";
import { brokerContract } from "../helpers/broker-contract.ts";
import { preferencesContract } from "../helpers/preferences-contract.ts";

brokerContract("in memory", async (options) => new InMemoryChatBroker(options));
preferencesContract("in memory", async (options) => new InMemoryChatBroker(options));
