import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { DB } from "../../db/schema.ts";
import { contactInput } from "../../src/common/contact.ts";
import {
  CONTACT_RATE,
  listContactMessages,
  sendContactMessage,
} from "../../src/core/contact/contact.ts";
import { RateLimitedError } from "../../src/core/errors.ts";
import { MemoryRateLimiter } from "../../src/core/limits/rate-limiter.ts";
import { VirtualClock } from "../helpers/clock.ts";
import { openTestDatabase } from "../helpers/database.ts";

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let db: DB;
beforeEach(async () => {
  database = await openTestDatabase();
  db = database.db;
});
afterEach(() => database.dispose());

const sender = { visitorId: "v1", ipKey: "ip1", locale: "zh-TW" };
const message = { name: "Mei", email: "mei@example.org", message: "Hello from the shore" };

describe("contact messages", () => {
  test("are stored with the visitor's language, newest first", async () => {
    const limiter = new MemoryRateLimiter(new VirtualClock(0));
    await sendContactMessage(db, limiter, sender, message, 1000);
    await sendContactMessage(db, limiter, sender, { ...message, name: "Lin" }, 2000);
    const rows = await listContactMessages(db);
    expect(rows.map((r) => r.name)).toEqual(["Lin", "Mei"]);
    expect(rows[0]).toMatchObject({ email: "mei@example.org", locale: "zh-TW", created_at: 2000 });
  });

  test("past the rate limit are refused and not stored", async () => {
    const limiter = new MemoryRateLimiter(new VirtualClock(0));
    for (let i = 0; i < CONTACT_RATE.limit; i++)
      await sendContactMessage(db, limiter, sender, message, i);
    await expect(sendContactMessage(db, limiter, sender, message, 99)).rejects.toBeInstanceOf(
      RateLimitedError,
    );
    // Another visitor behind the same address is limited too.
    await expect(
      sendContactMessage(db, limiter, { ...sender, visitorId: "v2" }, message, 99),
    ).rejects.toBeInstanceOf(RateLimitedError);
    expect(await listContactMessages(db)).toHaveLength(CONTACT_RATE.limit);
  });
});

describe("contact input", () => {
  test("trims and accepts a good message", () => {
    expect(
      contactInput.parse({ name: " Mei ", email: " mei@example.org ", message: " hi " }),
    ).toEqual({
      name: "Mei",
      email: "mei@example.org",
      message: "hi",
    });
  });
  test("refuses blanks, bad e-mail and overlong fields", () => {
    expect(contactInput.safeParse({ ...message, name: "   " }).success).toBe(false);
    expect(contactInput.safeParse({ ...message, email: "not-an-email" }).success).toBe(false);
    expect(contactInput.safeParse({ ...message, message: "x".repeat(5001) }).success).toBe(false);
  });
  test("terminal and bidi controls are taken out before the message is kept; lines stay", () => {
    // Tried as an attacker would: a message that clears the operator's screen, writes the
    // clipboard (OSC 52) and turns text around.
    const parsed = contactInput.parse({
      name: "Mei\u001b[2J\u202e",
      email: "mei@example.org\u0007",
      message: "first line\n\tsecond\u001b]52;c;ZWNobyBoaQ==\u0007\u009b31m\u2066x\u2069\r",
    });
    expect(parsed).toEqual({
      name: "Mei[2J",
      email: "mei@example.org",
      message: "first line\n\tsecond]52;c;ZWNobyBoaQ==31mx",
    });
  });
});
