import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { connect } from "node:net";
import { banFromChat, setBottleHidden } from "../../src/core/admin/operator.ts";
import { START_RATES } from "../../src/core/chat/start.ts";
import { MAX_UNSENT_BYTES, SOCKET_LIMITS } from "../../src/server/ws.ts";
import {
  type ChatTester,
  chatSocket,
  chatTester,
  isType,
  listening,
  visitorId,
} from "../helpers/chat-client.ts";
import { eventually } from "../helpers/eventually.ts";
import {
  bottleInput,
  bottleWriter,
  failure,
  signedVisitorCookie,
  startTestServer,
  type TestServer,
  trpcClient,
} from "../helpers/server.ts";

// The chat's protections against the real server and real sockets: bans that outlive the
// cookie, floods of typing and subscriptions, socket caps, rotating cookies, presence that
// empties, and chat text never written to the database.
const GRACE_MS = 300;
let server: TestServer;
const open: ChatTester[] = [];
beforeAll(async () => {
  server = await startTestServer(
    { TRUST_PROXY: "true" },
    { chat: { resumeGraceMs: GRACE_MS }, banSyncMs: 100 },
  );
});
afterAll(async () => {
  for (const t of open) t.close();
  await server.close();
});

let addresses = 0;
const nextAddress = () => `192.0.2.${++addresses}`;
function tester(options: Parameters<typeof chatTester>[1] = {}) {
  const t = chatTester(server.url, { address: nextAddress(), ...options });
  open.push(t);
  return t;
}
async function pair() {
  const [a, b] = await Promise.all([listening(tester()), listening(tester())]);
  await a.start();
  await b.start();
  await a.waitFor(isType("matched"));
  await b.waitFor(isType("matched"));
  return { a, b };
}

/** What the site's database holds in its translation cache, whichever engine it runs on. */
async function storedTranslations(): Promise<string[]> {
  const rows = await server.app.services.db
    .selectFrom("translations")
    .select("translated_text")
    .execute();
  return rows.map((row) => row.translated_text);
}

async function health() {
  return (await (await fetch(`${server.url}/healthz`)).json()) as {
    chats: number;
    waiting: number;
    present: number;
  };
}

describe("bans hold when the cookie is dropped", () => {
  test("an operator's ban on a visitor also refuses a cookie-less start from their address", async () => {
    const address = nextAddress();
    const banned = tester({ address });
    banned.listen();
    await banned.waitFor(isType("status"));
    await banned.start();
    // The operator's command writes to the database; the site reads it within its sync.
    const keys = await banFromChat(
      server.app.services.db,
      `visitor:${banned.visitorId}`,
      Date.now() + 60 * 60 * 1000,
      Date.now(),
    );
    expect(keys.some((k) => k.startsWith("ip:"))).toBe(true);
    await banned.waitFor(isType("banned"));
    banned.close();
    // No cookie at all: a new visitor, from the same address.
    const response = await fetch(`${server.url}/trpc/chat.start`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        origin: server.url,
        "x-forwarded-for": address,
      },
      body: "{}",
    });
    expect(response.status).toBe(403);
    const body = (await response.json()) as { error: { data: { appCode: string } } };
    expect(body.error.data.appCode).toBe("CHAT_BANNED");
  });
});

describe("chat floods", () => {
  test("a typing flood reaches the partner as at most two events a second", async () => {
    const { a, b } = await pair();
    const typing = () => b.events.filter(isType("typing"));
    const before = typing().length;
    const started = Date.now();
    let sent = 0;
    // Frames of ten calls, as many as a frame may hold, as fast as they are answered.
    while (Date.now() - started < 2000) {
      const calls = Array.from({ length: 10 }, (_, i) =>
        a.api.chat.typing.mutate({ isTyping: i % 2 === 0 }),
      );
      await Promise.allSettled(calls);
      sent += calls.length;
    }
    // The last state always arrives. Which one the flood ended on is the server's order, so
    // settle it: "typing" until the partner shows it, then "stopped" until the partner shows
    // that; with nothing held back after it, the count is complete.
    for (const isTyping of [true, false]) {
      await a.api.chat.typing.mutate({ isTyping });
      await b.waitFor(() => typing().at(-1)?.isTyping === isTyping);
    }
    const seconds = (Date.now() - started) / 1000;
    const received = typing().length - before;
    expect(sent).toBeGreaterThan(200);
    expect(received).toBeGreaterThanOrEqual(2);
    // Two a second, and the first at once.
    expect(received).toBeLessThanOrEqual(Math.floor(seconds * 2) + 1);
    a.close();
    b.close();
  });

  test("600 subscriptions in one frame open none; ten in one frame leave one stream: a message arrives once", async () => {
    const { a, b } = await pair();
    const socket = new WebSocket(`${server.url.replace("http", "ws")}/trpc`, {
      headers: {
        Origin: server.url,
        Cookie: signedVisitorCookie(b.visitorId),
        "X-Forwarded-For": nextAddress(),
      },
    } as unknown as string[]);
    const frames: string[] = [];
    await new Promise<void>((resolve) => {
      socket.onopen = () => resolve();
    });
    socket.onmessage = (event) => frames.push(String(event.data));
    const subscriptions = (count: number, from: number) =>
      Array.from({ length: count }, (_, i) => ({
        id: from + i,
        method: "subscription",
        params: { path: "chat.events", input: {} },
      }));
    /** Resolves once `check` holds, looking again at each frame that arrives. */
    const arrived = (check: () => boolean) =>
      new Promise<void>((resolve) => {
        const look = () => (check() ? resolve() : undefined);
        socket.addEventListener("message", () => queueMicrotask(look));
        look();
      });
    /** A query sent after everything before it, answered once those have been handled. */
    let asked = 0;
    const caughtUp = async () => {
      const id = `caught-up-${++asked}`;
      socket.send(JSON.stringify({ id, method: "query", params: { path: "chat.online" } }));
      await arrived(() => frames.some((f) => f.includes(`"${id}"`)));
    };
    socket.send(JSON.stringify(subscriptions(600, 1)));
    await caughtUp();
    // Refused whole: one refusal per call, no stream opened.
    const refusals = frames.filter((f) => !f.includes('"caught-up-'));
    expect(refusals).toHaveLength(600);
    expect(refusals.every((f) => f.includes("BAD_REQUEST"))).toBe(true);
    const unheard = await a.api.chat.send.mutate({ content: "to nobody yet" });
    // The partner's own stream has it; this socket, with no stream, has nothing to hand on.
    await b.waitFor((e) => e.type === "message" && e.message.id === unheard.id);
    await caughtUp();
    expect(frames.some((f) => f.includes("to nobody yet"))).toBe(false);
    socket.send(JSON.stringify(subscriptions(10, 1000)));
    // Each stream starts with a status event; the last one's says all ten were handled.
    await arrived(() =>
      frames.some((f) => f.startsWith('{"id":1009,') && f.includes('"type":"status"')),
    );
    const before = frames.length;
    await a.api.chat.send.mutate({ content: "just once" });
    // A second message arrives after the first on every stream it reaches.
    await a.api.chat.send.mutate({ content: "and then this" });
    await arrived(() => frames.slice(before).some((f) => f.includes("and then this")));
    const deliveries = frames.slice(before).filter((f) => f.includes("just once"));
    expect(deliveries).toHaveLength(1);
    socket.close();
    a.close();
    b.close();
  });

  test(`a fifth socket for one visitor is refused`, async () => {
    const id = visitorId();
    const sockets: WebSocket[] = [];
    const outcomes: string[] = [];
    for (let i = 0; i <= SOCKET_LIMITS.perVisitor; i++) {
      const socket = await chatSocket(server.url, {
        Cookie: signedVisitorCookie(id),
        "X-Forwarded-For": nextAddress(),
      });
      if (socket) sockets.push(socket);
      outcomes.push(socket ? "open" : "refused");
    }
    expect(outcomes).toEqual([...Array(SOCKET_LIMITS.perVisitor).fill("open"), "refused"]);
    for (const socket of sockets) socket.close();
  });

  test("a socket that asks and never reads is closed once 1 MiB waits unsent for it", async () => {
    // Twenty public bottles of 1,000 characters: each answer to publicList is ~21 KB.
    for (let i = 0; i < 20; i++) {
      const writer = await bottleWriter(server.url, {
        "X-Forwarded-For": nextAddress(),
        Cookie: signedVisitorCookie(visitorId()),
      });
      const sentence = `Bottle ${String.fromCharCode(65 + i)} drifted past the quiet harbour at dawn, and the gulls followed it out to sea. `;
      await writer.bottles.throw.mutate(
        bottleInput(sentence.repeat(10).slice(0, 1000), { isPublic: true }),
      );
    }
    const { port, hostname, host } = new URL(server.url);
    const raw = connect(Number(port), hostname);
    await once(raw, "connect");
    raw.write(
      [
        "GET /trpc HTTP/1.1",
        `Host: ${host}`,
        "Upgrade: websocket",
        "Connection: Upgrade",
        `Sec-WebSocket-Key: ${randomBytes(16).toString("base64")}`,
        "Sec-WebSocket-Version: 13",
        `Origin: ${server.url}`,
        `Cookie: ${signedVisitorCookie(visitorId())}`,
        `X-Forwarded-For: ${nextAddress()}`,
        "",
        "",
      ].join("\r\n"),
    );
    const [handshake] = (await once(raw, "data")) as [Buffer];
    expect(handshake.toString()).toStartWith("HTTP/1.1 101");
    // From now on nothing is read: the answers pile up in the kernel's buffers, then the server's.
    raw.pause();
    let received = handshake.length;
    // Enough answers to fill the largest buffers the kernel may give the two ends, and more.
    const answer = JSON.stringify(await trpcClient(server.url).bottles.publicList.query()).length;
    const calls = Math.ceil((kernelBufferBytes() + 4 * MAX_UNSENT_BYTES) / answer);
    const answered = async () =>
      (await server.app.services.metrics.calls.get()).values
        .filter((v) => v.labels.procedure === "bottles.publicList")
        .reduce((sum, v) => sum + v.value, 0);
    const before = await answered();
    for (let id = 0; id < calls; id += 10) {
      const batch = Array.from({ length: 10 }, (_, i) => ({
        id: id + i,
        method: "query",
        params: { path: "bottles.publicList" },
      }));
      raw.write(maskedTextFrame(JSON.stringify(batch)));
    }
    await eventually(
      async () => (await answered()) - before >= calls,
      "the server has handled every call",
    );
    // Then everything that reaches the client is read: the server closed the socket, so it ends.
    let closed = false;
    raw.once("close", () => {
      closed = true;
    });
    raw.on("data", (chunk: Buffer) => {
      received += chunk.length;
    });
    raw.on("error", () => {});
    raw.resume();
    await eventually(() => closed, "the server closed the socket");
    // What arrived is what the kernel held and 1 MiB at most: some answers were never sent.
    expect(received).toBeLessThan(calls * answer);
    raw.destroy();
  });

  test("starts with rotating cookies from one address are limited per address", async () => {
    // 200 visitors who each passed the safety gate, somewhere.
    const cookies = await Promise.all(
      Array.from({ length: 200 }, async () => {
        const cookie = signedVisitorCookie(visitorId());
        await trpcClient(server.url, {
          "X-Forwarded-For": nextAddress(),
          Cookie: cookie,
        }).chat.confirmAge.mutate({ adult: true });
        return cookie;
      }),
    );
    const address = nextAddress();
    const results = await Promise.all(
      cookies.map((cookie) =>
        trpcClient(server.url, { "X-Forwarded-For": address, Cookie: cookie })
          .chat.start.mutate()
          .then(
            () => 200,
            async (error) => (await failure(Promise.reject(error))).status,
          ),
      ),
    );
    expect(results.filter((s) => s === 200)).toHaveLength(START_RATES.perAddress.limit);
    expect(results.filter((s) => s === 429)).toHaveLength(200 - START_RATES.perAddress.limit);
  });
});

describe("presence", () => {
  test("visitors who start and never listen, or pair and go, leave; the pool and presence empty", async () => {
    const empty = async () => {
      const now = await health();
      return now.present + now.waiting + now.chats === 0 ? now : undefined;
    };
    // Earlier tests' visitors leave first, once their grace period has run out.
    await eventually(empty, "the earlier visitors gone");
    const { a, b } = await pair();
    // Fifty who start and never open a stream, all at once: each joins the pool (a count taken
    // now would depend on how many have already outlived the grace period on a busy machine).
    const started = await Promise.all(
      Array.from({ length: 50 }, async () => {
        const api = trpcClient(server.url, { "X-Forwarded-For": nextAddress() });
        await api.chat.confirmAge.mutate({ adult: true });
        return api.chat.start.mutate();
      }),
    );
    expect(started.every((status) => status.state === "waiting")).toBe(true);
    a.close();
    b.close();
    // Settles once the grace period has run out for everyone (slower on a loaded machine).
    expect(await eventually(empty, "everyone gone")).toMatchObject({
      chats: 0,
      waiting: 0,
      present: 0,
    });
  });
});

describe("what is kept", () => {
  test("a translated chat message is never written to the database", async () => {
    const { a, b } = await pair();
    const message = await a.api.chat.send.mutate({ content: "這個軟體很好用" });
    await b.waitFor((e) => e.type === "message" && e.message.id === message.id);
    const translated = await b.api.chat.translate.mutate({
      messageId: message.id,
      target: "zh-CN",
    });
    expect(translated.text).toBe("这个软件很好用");
    expect(await storedTranslations()).not.toContain("这个软件很好用");
  });

  test("a bottle's translation is kept while the bottle is, and forgotten when it is hidden", async () => {
    const writer = await bottleWriter(server.url, { "X-Forwarded-For": nextAddress() });
    const { id } = await writer.bottles.throw.mutate(
      bottleInput("海上的軟體瓶子", { isPublic: true, locale: "zh-TW" }),
    );
    const reader = trpcClient(server.url, { "X-Forwarded-For": nextAddress() });
    expect((await reader.translate.bottle.mutate({ bottleId: id, target: "zh-CN" })).text).toBe(
      "海上的软件瓶子",
    );
    expect(await storedTranslations()).toContain("海上的软件瓶子");
    await setBottleHidden(server.app.services.db, id, true, Date.now());
    expect(await storedTranslations()).not.toContain("海上的软件瓶子");
  });
});

/** The most the kernel buffers for one TCP connection's two ends (receiving and sending). */
function kernelBufferBytes(): number {
  const most = (file: string) =>
    Number(readFileSync(`/proc/sys/net/ipv4/${file}`, "utf8").trim().split(/\s+/)[2]);
  try {
    return most("tcp_rmem") + most("tcp_wmem");
  } catch {
    return 64 * 1024 * 1024;
  }
}

/** A text frame as a client sends it (RFC 6455: a client masks every frame). */
function maskedTextFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  const mask = randomBytes(4);
  const length = payload.length;
  const head =
    length < 126
      ? Buffer.from([0x81, 0x80 | length])
      : Buffer.from([0x81, 0x80 | 126, length >> 8, length & 0xff]);
  const body = Buffer.alloc(length);
  for (let i = 0; i < length; i++) body[i] = (payload[i] as number) ^ (mask[i % 4] as number);
  return Buffer.concat([head, mask, body]);
}
