import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "kysely";
import type { PowAction } from "../../src/common/pow.ts";
import { solvedFor } from "../helpers/pow.ts";
import {
  bottleInput,
  bottleWriter,
  CookieJar,
  failure,
  rows,
  startTestServer,
  type TestServer,
  trpcClient,
} from "../helpers/server.ts";

// Each protected call, on a server with proof of work on (at the smallest cost, solved for
// real): without a solution, with a replayed one, and with one for another action, it is
// refused with one code and writes nothing.
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ POW: "true", POW_COST: "1" });
});
afterAll(() => server.close());

const count = async (table: "bottles" | "users" | "contact_messages") =>
  Number(
    (await rows<{ n: number }>(server, sql`select count(*) as n from ${sql.table(table)}`))[0]?.n,
  );

/** Visitors in the chat pool (searching or chatting). */
const present = async () => (await server.app.services.chat.broker.counts()).present;

type Api = ReturnType<typeof trpcClient>;

/** One protected call with its solution, and how to count what it writes. */
interface Protected {
  action: PowAction;
  client(): Promise<Api>;
  call(api: Api, pow: string | undefined, n: number): Promise<unknown>;
  written(): Promise<number>;
}

const protectedCalls: Protected[] = [
  {
    action: "throw",
    client: () => bottleWriter(server.url),
    call: (api, pow, n) => api.bottles.throw.mutate({ ...bottleInput(`Bottle number ${n}`), pow }),
    written: () => count("bottles"),
  },
  {
    action: "signUp",
    client: async () => trpcClient(server.url),
    call: (api, pow, n) =>
      api.auth.signUp.mutate({ username: `sailor${n}`, password: "a long enough password", pow }),
    written: () => count("users"),
  },
  {
    action: "contact",
    client: async () => trpcClient(server.url),
    call: (api, pow, n) =>
      api.contact.send.mutate({
        name: "Ana",
        email: "ana@example.org",
        message: `Hello number ${n}`,
        pow,
      }),
    written: () => count("contact_messages"),
  },
  {
    action: "chat",
    client: async () => {
      const api = trpcClient(server.url);
      await api.chat.confirmAge.mutate({ adult: true });
      return api;
    },
    call: (api, pow) => api.chat.startWith.mutate({ pow }),
    written: present,
  },
];

describe("proof of work before each protected call", () => {
  for (const item of protectedCalls) {
    test(`${item.action}: none, replayed, or for another action is refused and writes nothing`, async () => {
      const api = await item.client();
      const before = await item.written();
      expect((await failure(item.call(api, undefined, 1))).data.appCode).toBe("POW_REQUIRED");
      const malformed = await failure(item.call(api, "not a solution", 2));
      expect(malformed.data.appCode).toBe("POW_INVALID");
      const otherAction = item.action === "throw" ? "contact" : "throw";
      const forOther = await solvedFor(api, otherAction);
      expect((await failure(item.call(api, forOther, 3))).data.appCode).toBe("POW_INVALID");
      expect(await item.written()).toBe(before);

      const solution = await solvedFor(api, item.action);
      await item.call(api, solution, 4);
      expect(await item.written()).toBe(before + 1);
      if (item.action === "chat") await api.chat.end.mutate();
      const after = await item.written();
      // Replayed (the chat's by another visitor: the solver's own would be let in by its pass).
      const replayer = item.action === "chat" ? await item.client() : api;
      const replay = await failure(item.call(replayer, solution, 5));
      expect(replay.data.appCode).toBe("POW_INVALID");
      expect(replay.status).toBe(403);
      expect(await item.written()).toBe(after);
    });
  }

  test("a solution for another visitor is refused", async () => {
    const mine = await bottleWriter(server.url);
    const theirs = await bottleWriter(server.url);
    const before = await count("bottles");
    const solution = await solvedFor(mine, "throw");
    const refused = await failure(
      theirs.bottles.throw.mutate({ ...bottleInput("Not my solution"), pow: solution }),
    );
    expect(refused.data.appCode).toBe("POW_INVALID");
    expect(await count("bottles")).toBe(before);
  });

  test("a chat start solved for lets the next starts (Next) in without one", async () => {
    const api = await protectedCalls[3]?.client();
    if (!api) throw new Error("no chat client");
    expect((await failure(api.chat.start.mutate())).data.appCode).toBe("POW_REQUIRED");
    await api.chat.startWith.mutate({ pow: await solvedFor(api, "chat") });
    await api.chat.end.mutate();
    // Bare, as a visitor pressing Next: the pass lets it in.
    expect(await api.chat.start.mutate()).toEqual({ state: "waiting" });
    await api.chat.end.mutate();
  });

  test("signing in asks for proof of work only after wrong passwords", async () => {
    const jar = new CookieJar();
    const api = trpcClient(server.url, {}, jar);
    await api.auth.signUp.mutate({
      username: "navigator",
      password: "a long enough password",
      pow: await solvedFor(api, "signUp"),
    });
    await api.auth.signOut.mutate();
    expect((await api.pow.challenge.mutate({ action: "signIn" })).challenge).toBeNull();
    for (let i = 0; i < 2; i++) {
      const wrong = api.auth.signIn.mutate({ username: "navigator", password: "not the password" });
      expect((await failure(wrong)).data.appCode).toBe("INVALID_CREDENTIALS");
    }
    const right = { username: "navigator", password: "a long enough password" };
    expect((await failure(api.auth.signIn.mutate(right))).data.appCode).toBe("POW_REQUIRED");
    await api.auth.signIn.mutate({ ...right, pow: await solvedFor(api, "signIn") });
    expect((await api.auth.me.query()).user?.username).toBe("navigator");
  });
});

describe("proof of work switched off", () => {
  test("no challenge is issued and the calls need none", async () => {
    const off = await startTestServer({ POW: "false" });
    try {
      const api = await bottleWriter(off.url);
      expect((await api.pow.challenge.mutate({ action: "throw" })).challenge).toBeNull();
      await api.bottles.throw.mutate(bottleInput("No work needed"));
    } finally {
      await off.close();
    }
  });
});
