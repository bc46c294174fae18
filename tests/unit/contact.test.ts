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
});
