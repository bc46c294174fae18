import { describe, expect, test } from "bun:test";
import type { ChatEvent } from "../../src/common/chat.ts";
import {
  after,
  announcedPayload,
  type Checks,
  checksPayload,
  eventPayload,
  keptOfMatched,
  keptPlace,
  type MatchedKeep,
  parsePayload,
  parseResume,
  resumableUnkept,
  typingPayload,
  unkeptChat,
} from "../../src/core/chat/redis/wire.ts";

// The chat's wire format on Redis, written and read in one module: whatever is written reads
// back as it was, for any id, chat, country or text a visitor could bring.

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";
let seed = 20261129;
function random(): number {
  // A small fixed-seed generator, so a failure names the same case every run.
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return seed / 2 ** 31;
}
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
const idOf = (length: number) => Array.from({ length }, () => pick([...ALPHABET])).join("");
const streamId = () => `${Math.floor(random() * 2 ** 42)}-${Math.floor(random() * 1000)}`;
const texts = [
  "hi",
  "tab\tinside",
  "new\nline",
  "emoji 🌊",
  "引號「」與\\反斜線",
  '{"json":1}',
  "",
];
const countries = ["Taiwan", "Côte d'Ivoire", "Unknown", "日本"];

function randomEvent(chatId: string): ChatEvent {
  const partner = { code: pick(["TW", "JP", null]), name: pick(countries) };
  return pick<ChatEvent>([
    { type: "idle" },
    { type: "waiting" },
    { type: "status", status: { state: "chatting", chatId, partner } },
    { type: "matched", chatId, partner },
    {
      type: "message",
      chatId,
      message: {
        id: `${chatId}${idOf(12)}`,
        from: "partner",
        content: pick(texts),
        timestamp: Math.floor(random() * 2 ** 41),
        country: partner,
      },
    },
    { type: "typing", chatId, isTyping: random() < 0.5 },
    { type: "partner-left", chatId },
    { type: "banned", until: Math.floor(random() * 2 ** 41) },
    { type: "muted", until: Math.floor(random() * 2 ** 41) },
  ]);
}

describe("the chat's wire codec", () => {
  test("every payload reads back as it was written, for a thousand random ones", () => {
    for (let i = 0; i < 1000; i++) {
      const chatId = idOf(12);
      const event = randomEvent(chatId);
      const json = JSON.stringify(event);
      const id = `${chatId}.${streamId()}`;
      expect(parsePayload(eventPayload(id, json))).toEqual({ id, event });
      if (event.type === "matched") {
        const keep: MatchedKeep = {
          side: pick(["a", "b"] as const),
          partner: idOf(22),
          country: { code: pick(["TW", null]), name: pick(countries) },
          checksOn: random() < 0.5,
        };
        expect(parsePayload(eventPayload(id, json, keep))).toEqual({ id, event, keep });
        // As the open script sends it: the kept fields, then whether the checks start on.
        const fromScript = `${id}\t${json}\t${keptOfMatched(keep)}\t${keep.checksOn ? 1 : 0}`;
        expect(parsePayload(fromScript)).toEqual({ id, event, keep });
      }
      const checks: Checks = { checks: true, chat: chatId, count: i, on: random() < 0.5 };
      expect(parsePayload(checksPayload(checks))).toEqual(checks);
      expect(parsePayload(typingPayload(json))).toEqual({ id: "-", event, typing: true });
    }
  });

  test("a message a transaction announced: its chat, then an id a stream can resume from", () => {
    for (let i = 0; i < 200; i++) {
      const chatId = idOf(12);
      const messageId = `${chatId}${idOf(12)}`;
      const payload = parsePayload(announcedPayload(chatId, messageId, "{}"));
      if (payload.checks) throw new Error("not an event");
      expect(unkeptChat(payload.id)).toBe(chatId);
      const position = streamId();
      const resumable = resumableUnkept(payload.id, position);
      expect(keptPlace(resumable)?.chat).toBe(chatId);
      // Resuming from it reads after the stream id, and skips through the message itself.
      expect(parseResume(resumable)).toEqual({ chat: chatId, at: position, through: messageId });
      // A kept event's id is no announced message's.
      expect(unkeptChat(`${chatId}.${position}`)).toBeUndefined();
    }
  });

  test("resume ids: a place in a chat, outside any chat, or nothing a client could make up", () => {
    expect(parseResume("-")).toBe("outside");
    expect(parseResume(null)).toBeUndefined();
    expect(parseResume("abcdefghijkl.1700000000000-3")).toEqual({
      chat: "abcdefghijkl",
      at: "1700000000000-3",
    });
    for (const forged of [
      "x.1-1",
      "abcdefghijkl.",
      "abcdefghijkl.1-x",
      "abcdefghijkl.1-1+bad",
      ".1-1",
    ]) {
      expect(parseResume(forged)).toBeUndefined();
    }
  });

  test("stream ids compare in order, by time then sequence", () => {
    expect(after("2-0", "1-9")).toBe(true);
    expect(after("1-10", "1-9")).toBe(true);
    expect(after("1-9", "1-9")).toBe(false);
    expect(after("1-9", "2-0")).toBe(false);
  });
});
