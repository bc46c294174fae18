import { describe, expect, test } from "bun:test";
import {
  CHAT_SCRIPTS,
  type ChatScript,
  chatScriptSource,
} from "../../src/core/chat/redis-chat-lua.ts";
import {
  POOL_SCRIPTS,
  type PoolScript,
  poolScriptSource,
} from "../../src/core/chat/redis-pool-lua.ts";
import { withShared } from "../../src/core/redis-script.ts";

const HEADER = "local now = tonumber(ARGV[1])";
const SHARED = `
local function a(x) return x end

-- Calls a; b() in a comment is no call.
local function b(x) return a(x) end

local LIST = { 1, 2 }

local function c(x) return LIST[x] end
`;

/** The names a script's source defines at its top level, in order. */
const defined = (source: string) =>
  [...source.matchAll(/^local (?:function )?(\w+)/gm)].map((m) => m[1]);

describe("a Redis script made with only the shared definitions it uses", () => {
  test("what the body calls comes in, with what that calls, in the shared order", () => {
    expect(defined(withShared(HEADER, SHARED, "return b(1)"))).toEqual(["now", "a", "b"]);
    expect(defined(withShared(HEADER, SHARED, "return c(1) + a(2)"))).toEqual([
      "now",
      "a",
      "LIST",
      "c",
    ]);
  });

  test("a name in a comment or none at all brings nothing in", () => {
    expect(defined(withShared(HEADER, SHARED, "-- not b(1)\nreturn 1"))).toEqual(["now"]);
  });

  test("every chat and pool script defines each shared function it calls", () => {
    const sources = [
      ...Object.keys(CHAT_SCRIPTS).map((name) => chatScriptSource(name as ChatScript)),
      ...Object.keys(POOL_SCRIPTS).map((name) => poolScriptSource(name as PoolScript)),
    ];
    for (const source of sources) {
      const lua = source.replace(/--[^\n]*/g, "");
      const functions = new Set(defined(source));
      for (const [, name] of lua.matchAll(/(?<![\w.:])(\w+)\(/g)) {
        if (
          /^(if|and|or|not|return|elseif|in|tonumber|tostring|unpack|ipairs|pairs|type|select|function)$/.test(
            name as string,
          )
        )
          continue;
        expect({ name, defined: functions.has(name as string) }).toEqual({ name, defined: true });
      }
    }
  });

  test("the send script, the commonest, makes no function", () => {
    expect(chatScriptSource("send")).not.toContain("local function");
  });
});
