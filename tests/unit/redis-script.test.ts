import { describe, expect, test } from "bun:test";
import {
  CHAT_SCRIPTS,
  type ChatScript,
  chatScriptSource,
} from "../../src/core/chat/redis/lua/chat/index.ts";
import { CHAT_HELPERS } from "../../src/core/chat/redis/lua/chat/prelude.ts";
import { POOL_HELPERS } from "../../src/core/chat/redis/lua/pool/helpers.ts";
import {
  POOL_SCRIPTS,
  type PoolScript,
  poolScriptSource,
} from "../../src/core/chat/redis/lua/pool/index.ts";

/** The names a script's source defines at its top level, in order. */
const defined = (source: string) =>
  [...source.matchAll(/^local (?:function )?(\w+)/gm)].map((m) => m[1]);

const withoutComments = (lua: string) => lua.replace(/--[^\n]*/g, "");

const scripts = [
  ...Object.entries(CHAT_SCRIPTS).map(([name, body]) => ({
    name: `chat ${name}`,
    body: body as string,
    source: chatScriptSource(name as ChatScript),
  })),
  ...Object.entries(POOL_SCRIPTS).map(([name, body]) => ({
    name: `pool ${name}`,
    body: body as string,
    source: poolScriptSource(name as PoolScript),
  })),
];

describe("the Lua scripts of the chat and the pool", () => {
  test("every script defines each function it calls", () => {
    for (const { name, source } of scripts) {
      const functions = new Set(defined(source));
      for (const [, called] of withoutComments(source).matchAll(/(?<![\w.:])(\w+)\(/g)) {
        if (
          /^(if|and|or|not|return|elseif|in|tonumber|tostring|unpack|ipairs|pairs|type|select|function)$/.test(
            called as string,
          )
        )
          continue;
        expect({ name, called, defined: functions.has(called as string) }).toEqual({
          name,
          called,
          defined: true,
        });
      }
    }
  });

  test("each script's own body is short enough to read at once", () => {
    for (const { name, body } of scripts) {
      expect({ name, lines: body.trim().split("\n").length <= 150 }).toEqual({ name, lines: true });
    }
  });

  test("inputs are named once, at the top: the bodies read them by name", () => {
    // The helpers never read KEYS or ARGV; a body reads ARGV only where it names its inputs (a
    // local at the top), or where it walks a list of them (ARGV[i ...]).
    for (const helpers of [POOL_HELPERS, CHAT_HELPERS]) {
      expect(withoutComments(helpers)).not.toMatch(/KEYS\[|ARGV\[/);
    }
    for (const { name, body } of scripts) {
      const lines = withoutComments(body).split("\n");
      const firstStep = lines.findIndex((line) => /\S/.test(line) && !/^(local |\s)/.test(line));
      for (const [i, line] of lines.entries()) {
        if (!/KEYS\[|ARGV\[/.test(line) || /ARGV\[i[\] +]/.test(line)) continue;
        expect({ name, line, atTop: i < firstStep }).toEqual({ name, line, atTop: true });
      }
    }
  });
});
