import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { MAX_BATCH_SIZE } from "../../src/server/trpc/http.ts";
import { OVERSIZED_FRAMES_TO_CLOSE, POLICY_VIOLATION } from "../../src/server/ws.ts";
import {
  type ChatTester,
  chatTester,
  isType,
  listening,
  pairListening,
  visitorId,
} from "../helpers/chat-client.ts";
import {
  bottleInput,
  failure,
  signedVisitorCookie,
  startTestServer,
  type TestServer,
  trpcClient,
} from "../helpers/server.ts";

// The cheap gates before the work, tried as a script would: oversized frames over the socket,
// age answers sent together, a chat under 18, a throw without the age answer, a one-socket flood.
let server: TestServer;
const open: ChatTester[] = [];
beforeAll(async () => {
  server = await startTestServer({ TRUST_PROXY: "true" });
});
afterEach(() => {
  for (const t of open.splice(0)) t.close();
});
afterAll(() => server.close());

let addresses = 0;
const nextAddress = () => `100.90.${Math.floor(++addresses / 250)}.${(addresses % 250) + 1}`;
function tester(address = nextAddress()) {
  const t = chatTester(server.url, { address });
  open.push(t);
  return t;
}

/** A raw socket as a script opens one, collecting what it is sent and how it closes. */
async function rawSocket(cookie: string) {
  const received: string[] = [];
  const socket = new WebSocket(`${server.url.replace(/^http/, "ws")}/trpc`, {
    headers: { Origin: server.url, Cookie: cookie, "X-Forwarded-For": nextAddress() },
  } as unknown as string[]);
  const closed = new Promise<number>((resolve) => {
    socket.addEventListener("close", (event) => resolve(event.code));
  });
  socket.addEventListener("message", (event) => received.push(String(event.data)));
  await new Promise((resolve, reject) => {
    socket.addEventListener("open", resolve);
    socket.addEventListener("error", reject);
  });
  return { socket, received, closed };
}

/** Resolves once `done` holds, looking again at each message the socket gets. */
function waitUntil(done: () => boolean, timeoutMs = 5000): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const look = () => {
      if (done()) resolve();
      else if (Date.now() - started > timeoutMs) reject(new Error("timed out"));
      else setImmediate(look);
    };
    look();
  });
}

const call = (id: number, path: string, input: unknown) => ({
  id,
  method: "mutation",
  params: { path, input },
});

describe("calls per WebSocket frame are capped like HTTP batches", () => {
  test("a frame of 600 calls runs none of them; a socket that keeps sending them is closed", async () => {
    const cookie = signedVisitorCookie(visitorId());
    const raw = await rawSocket(cookie);
    const frame = JSON.stringify(
      // As many as fit in the 64 KB a frame may hold.
      Array.from({ length: 600 }, (_, i) => call(i + 1, "chat.confirmAge", { adult: true })),
    );
    raw.socket.send(frame);
    const api = trpcClient(server.url, { Cookie: cookie, "X-Forwarded-For": nextAddress() });
    // Every call is answered with the refusal, so no client waits; none of them ran.
    await waitUntil(() => raw.received.length === 600);
    for (const answer of raw.received) {
      expect(JSON.parse(answer)).toMatchObject({ error: { data: { code: "BAD_REQUEST" } } });
    }
    expect((await api.chat.me.query()).age).toBe("unanswered");
    // A frame within the cap is served as usual.
    raw.socket.send(
      JSON.stringify(
        Array.from({ length: MAX_BATCH_SIZE }, (_, i) =>
          call(1000 + i, "chat.confirmAge", { adult: true }),
        ),
      ),
    );
    await waitUntil(() => raw.received.length === 600 + MAX_BATCH_SIZE);
    for (const answer of raw.received.slice(600)) {
      expect(JSON.parse(answer)).toMatchObject({ result: { type: "data" } });
    }
    for (let i = 1; i < OVERSIZED_FRAMES_TO_CLOSE; i++) raw.socket.send(frame);
    expect(await raw.closed).toBe(POLICY_VIOLATION);
  });
});

describe("age answers", () => {
  for (const order of [
    [false, true],
    [true, false],
  ]) {
    test(`a batch answering ${order.join(" then ")} ends refused`, async () => {
      const cookie = signedVisitorCookie(visitorId());
      const response = await fetch(`${server.url}/trpc/chat.confirmAge,chat.confirmAge?batch=1`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          origin: server.url,
          cookie,
          "x-forwarded-for": nextAddress(),
        },
        body: JSON.stringify({ 0: { adult: order[0] }, 1: { adult: order[1] } }),
      });
      expect(response.status).toBe(200);
      const api = trpcClient(server.url, { Cookie: cookie, "X-Forwarded-For": nextAddress() });
      expect((await api.chat.me.query()).age).toBe("refused");
      expect((await failure(api.chat.start.mutate())).data.appCode).toBe("AGE_REFUSED");
    });
  }

  test("ten answers in parallel, one of them under 18, end refused", async () => {
    const cookie = signedVisitorCookie(visitorId());
    const address = nextAddress();
    const api = trpcClient(server.url, { Cookie: cookie, "X-Forwarded-For": address });
    await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => api.chat.confirmAge.mutate({ adult: i !== 7 })),
    );
    expect((await api.chat.me.query()).age).toBe("refused");
  });

  test("answering under 18 in the middle of a chat ends it; the partner hears only that they left", async () => {
    const minor = await listening(tester());
    const partner = await listening(tester());
    await pairListening(minor, partner);
    expect(await minor.api.chat.confirmAge.mutate({ adult: false })).toEqual({ age: "refused" });
    await partner.waitFor(isType("partner-left"));
    expect(partner.events.some((e) => e.type === "banned")).toBe(false);
    await minor.waitFor(isType("idle"));
    expect((await failure(minor.api.chat.start.mutate())).data.appCode).toBe("AGE_REFUSED");
  });

  test("a script cannot throw a bottle without the 13-or-older answer", async () => {
    const api = trpcClient(server.url, {
      Cookie: signedVisitorCookie(visitorId()),
      "X-Forwarded-For": nextAddress(),
    });
    const refused = await failure(api.bottles.throw.mutate(bottleInput("No answer given")));
    expect(refused.status).toBe(412);
    expect(refused.data.appCode).toBe("AGE_CONFIRMATION_REQUIRED");
    await api.bottles.confirmAge.mutate({ atLeast13: true });
    expect((await api.bottles.throw.mutate(bottleInput("Answered first"))).id).toBeGreaterThan(0);
  });
});

describe("one socket's flood", () => {
  test("3,000 distinct 1,000-character messages: the flood limit refuses all but a burst, and nothing is remembered for them", async () => {
    const sender = await listening(tester());
    const partner = await listening(tester());
    await pairListening(sender, partner);
    const before = server.app.services.repeats.size;
    const started = Date.now();
    let delivered = 0;
    // Frames of ten calls, as many as a frame may hold, one after the other.
    for (let frame = 0; frame < 300; frame++) {
      const answers = await Promise.allSettled(
        Array.from({ length: MAX_BATCH_SIZE }, (_, i) =>
          sender.api.chat.send.mutate({
            content: `${frame * 10 + i} ${"a distinct flood ".repeat(70)}`.slice(0, 1000),
          }),
        ),
      );
      delivered += answers.filter((a) => a.status === "fulfilled").length;
    }
    // The burst (10) and what refilled meanwhile (5 a second), no more.
    const seconds = (Date.now() - started) / 1000;
    expect(delivered).toBeGreaterThanOrEqual(10);
    expect(delivered).toBeLessThanOrEqual(10 + Math.ceil(5 * seconds));
    // The texts the gate refused left nothing behind: one sender remembered (visitor, address).
    expect(server.app.services.repeats.size - before).toBeLessThanOrEqual(2);
  });
});
