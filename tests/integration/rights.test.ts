import {
  afterAll,
  afterEach,
  beforeAll,
  describe,
  expect,
  setDefaultTimeout,
  test,
} from "bun:test";
import { setOperator } from "../../src/core/admin/queue.ts";
import { runAdmin } from "../../src/server/admin.ts";
import { type AccountSocket, accountSocket } from "../helpers/account-socket.ts";
import { testEngine } from "../helpers/database.ts";
import { eventually } from "../helpers/eventually.ts";
import {
  bottleInput,
  bottleWriter,
  CookieJar,
  failure,
  startTestServer,
  type TestServer,
  trpcClient,
} from "../helpers/server.ts";

// Rights end when they end, over a WebSocket opened before as over HTTP: tried as an attacker
// would, by keeping a socket open through the revocation. On a SQLite file by default, on
// PostgreSQL with Redis under `CLUSTER=1 ./scripts/test`.

// Password hashing is slow by design; these tests sign up and in several times.
setDefaultTimeout(20_000);

/** How soon a revocation made outside the site must reach a socket already open. */
const WITHIN_MS = 1000;

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ TRUST_PROXY: "true" });
});
const sockets: AccountSocket[] = [];
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.close();
});
afterAll(() => server.close());

let addresses = 0;
const password = "long-enough-pw";

/** A signed-up account over HTTP, from an address of its own, and its socket opened now. */
async function account(username: string, operator = false) {
  const jar = new CookieJar();
  const address = `198.51.100.${++addresses}`;
  const api = trpcClient(server.url, { "X-Forwarded-For": address }, jar);
  await api.auth.signUp.mutate({ username, password });
  if (operator) await setOperator(server.app.services.db, username, true, Date.now());
  const socket = accountSocket(server.url, jar, address);
  sockets.push(socket);
  return { jar, api, address, socket: socket.api };
}

/** Another session of the same account, signed in over HTTP from another browser. */
async function elsewhere(username: string) {
  const jar = new CookieJar();
  const api = trpcClient(server.url, { "X-Forwarded-For": `198.51.100.${++addresses}` }, jar);
  await api.auth.signIn.mutate({ username, password });
  return api;
}

/** The operator command, run as another process runs it: its own connection to the database. */
const operatorCommand = (verb: "add" | "remove", username: string) =>
  runAdmin(server.app.services.config, "operator", [verb, username], {}, () => {}, Date.now());

async function auditBy(operator: string) {
  return server.app.services.db
    .selectFrom("moderation_actions")
    .select(["action", "subject"])
    .where("operator", "=", operator)
    .execute();
}

async function aBottle(): Promise<number> {
  const writer = await bottleWriter(server.url, { "X-Forwarded-For": `198.51.100.${++addresses}` });
  const { id } = await writer.bottles.throw.mutate(bottleInput("A bottle to like and report"));
  return id;
}

describe(`an open socket keeps no rights taken away (${testEngine})`, () => {
  test("an operator removed by the command is refused on the socket already open, nothing recorded", async () => {
    const keeper = await account("socket_keeper", true);
    expect((await keeper.socket.moderation.queue.query()).groups).toBeArray();
    expect((await keeper.socket.auth.me.query()).isOperator).toBe(true);

    await operatorCommand("remove", "socket_keeper");
    await eventually(
      async () => (await failure(keeper.socket.moderation.queue.query())).status === 403,
      "the queue refused over the open socket",
      WITHIN_MS,
    );
    expect(
      await failure(
        keeper.socket.moderation.setFeature.mutate({ feature: "bottles", enabled: false }),
      ),
    ).toMatchObject({
      status: 403,
    });
    expect((await keeper.socket.auth.me.query()).isOperator).toBe(false);
    // Over HTTP the same.
    expect((await failure(keeper.api.moderation.queue.query())).status).toBe(403);
    expect(await auditBy("socket_keeper")).toEqual([]);
    expect(server.app.services.features.states.bottles).toBe(true);
  });

  test("an operator removed and signed out everywhere is refused on the socket already open", async () => {
    const keeper = await account("keeper_leaving", true);
    expect((await keeper.socket.moderation.queue.query()).groups).toBeArray();
    await operatorCommand("remove", "keeper_leaving");
    await keeper.api.auth.signOutEverywhere.mutate();
    // Signed out on this instance: at once, whatever the command's news.
    expect((await failure(keeper.socket.moderation.queue.query())).status).toBe(401);
    expect(
      (
        await failure(
          keeper.socket.moderation.setFeature.mutate({ feature: "publicBottles", enabled: false }),
        )
      ).status,
    ).toBe(401);
    expect((await keeper.socket.auth.me.query()).user).toBeNull();
    expect(await auditBy("keeper_leaving")).toEqual([]);
    expect(server.app.services.features.states.publicBottles).toBe(true);
  });

  test("an account made an operator by the command gets the queue on the socket already open", async () => {
    const helper = await account("socket_helper");
    expect((await failure(helper.socket.moderation.queue.query())).status).toBe(403);
    await operatorCommand("add", "socket_helper");
    await eventually(
      async () => (await helper.socket.moderation.queue.query()).groups,
      "the queue answered over the open socket",
      WITHIN_MS,
    );
  });

  const revocations: Array<
    [string, (a: Awaited<ReturnType<typeof account>>, name: string) => Promise<unknown>]
  > = [
    ["signing out", (a) => a.api.auth.signOut.mutate()],
    [
      "signing out everywhere (from another browser)",
      async (_a, name) => (await elsewhere(name)).auth.signOutEverywhere.mutate(),
    ],
    [
      "changing the password (from another browser)",
      async (_a, name) =>
        (await elsewhere(name)).auth.changePassword.mutate({
          currentPassword: password,
          newPassword: "another-long-pw",
        }),
    ],
    ["deleting the account", (a) => a.api.auth.deleteAccount.mutate({ password })],
  ];
  let readers = 0;
  for (const [what, revoke] of revocations) {
    test(`after ${what}, liking and reporting over the open socket are refused at once`, async () => {
      const bottleId = await aBottle();
      const name = `socket_reader_${++readers}`;
      const reader = await account(name);
      expect(await reader.socket.bottles.toggleLike.mutate({ bottleId })).toEqual({
        liked: true,
        count: 1,
      });
      await revoke(reader, name);
      expect((await failure(reader.socket.bottles.toggleLike.mutate({ bottleId }))).status).toBe(
        401,
      );
      expect(
        (await failure(reader.socket.bottles.report.mutate({ bottleId, reason: "spam" }))).status,
      ).toBe(401);
      expect((await reader.socket.auth.me.query()).user).toBeNull();
      const reports = await server.app.services.db
        .selectFrom("bottle_reports")
        .select("id")
        .where("bottle_id", "=", bottleId)
        .execute();
      expect(reports).toEqual([]);
    });
  }
});
