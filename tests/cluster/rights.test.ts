import {
  afterAll,
  afterEach,
  beforeAll,
  describe,
  expect,
  setDefaultTimeout,
  test,
} from "bun:test";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runAdmin } from "../../src/server/admin.ts";
import { loadConfig } from "../../src/server/config.ts";
import { type AccountSocket, accountSocket } from "../helpers/account-socket.ts";
import { clusterServers, withoutClusterServers } from "../helpers/cluster-servers.ts";
import { createPostgresDatabase } from "../helpers/database.ts";
import { eventually } from "../helpers/eventually.ts";
import { type ServerProcess, startServerProcess } from "../helpers/process.ts";
import { bottleInput, bottleWriter, CookieJar, failure, trpcClient } from "../helpers/server.ts";

// Rights end on every instance: a revocation made on one instance (or by the operator command,
// another process) reaches a socket already open on the other within a second. Two real
// processes on one PostgreSQL database and one Redis. Run by `CLUSTER=1 ./scripts/test`.

setDefaultTimeout(30_000);

/** How soon a revocation must reach a socket open on another instance. */
const WITHIN_MS = 1000;

let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
let one: ServerProcess;
let two: ServerProcess;
const prefix = `rights-${randomBytes(4).toString("hex")}:`;
const secret = randomBytes(24).toString("hex");
const dir = mkdtempSync(join(tmpdir(), "tidings-rights-"));
const env = () => ({
  DB_URL: database.url,
  REDIS_URL: clusterServers?.redisUrl ?? "",
  REDIS_PREFIX: prefix,
  SECRET: secret,
  TRUST_PROXY: "true",
  LOG_FORMAT: "off",
});

beforeAll(async () => {
  if (!clusterServers) return;
  database = await createPostgresDatabase(clusterServers.dbUrl);
  [one, two] = await Promise.all([startServerProcess(env()), startServerProcess(env())]);
});
const sockets: AccountSocket[] = [];
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.close();
});
afterAll(async () => {
  await Promise.all([one?.stop(), two?.stop()]);
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

let addresses = 0;
const nextAddress = () => `198.18.200.${++addresses}`;
const password = "long-enough-pw";

/** The operator command, as the operator runs it: another process, on the site's database. */
function operatorCommand(verb: "add" | "remove", username: string) {
  const config = loadConfig({
    DATA_DIR: dir,
    DB_URL: database.url,
    REDIS_URL: clusterServers?.redisUrl ?? "",
    PORT: "1",
  });
  return runAdmin(config, "operator", [verb, username], {}, () => {}, Date.now());
}

/** An account signed up on instance one, over HTTP, and a socket of it opened on instance two. */
async function account(username: string, operator = false) {
  const jar = new CookieJar();
  const address = nextAddress();
  const api = trpcClient(one.url, { "X-Forwarded-For": address }, jar);
  await api.auth.signUp.mutate({ username, password });
  if (operator) await operatorCommand("add", username);
  const socket = accountSocket(two.url, jar, address);
  sockets.push(socket);
  return { api, jar, address, socket: socket.api };
}

/** Waits for a refusal with this status, at most WITHIN_MS after it was asked for. */
async function refusedWithin(call: () => Promise<unknown>, status: number, what: string) {
  const since = performance.now();
  await eventually(async () => (await failure(call())).status === status, what, WITHIN_MS);
  return performance.now() - since;
}

describe.skipIf(withoutClusterServers)("rights end on every instance", () => {
  test("signing out on one instance ends liking and reporting on a socket open on the other", async () => {
    const writer = await bottleWriter(one.url, { "X-Forwarded-For": nextAddress() });
    const { id: bottleId } = await writer.bottles.throw.mutate(bottleInput("Across instances"));
    const reader = await account("reader_across");
    expect(await reader.socket.bottles.toggleLike.mutate({ bottleId })).toEqual({
      liked: true,
      count: 1,
    });
    await reader.api.auth.signOut.mutate();
    await refusedWithin(
      () => reader.socket.bottles.toggleLike.mutate({ bottleId }),
      401,
      "liking refused on the other instance",
    );
    expect(
      (await failure(reader.socket.bottles.report.mutate({ bottleId, reason: "spam" }))).status,
    ).toBe(401);
  });

  test("signing out everywhere on one instance ends the moderation queue on the other", async () => {
    const keeper = await account("keeper_across", true);
    expect((await keeper.socket.moderation.queue.query()).groups).toBeArray();
    await keeper.api.auth.signOutEverywhere.mutate();
    await refusedWithin(
      () => keeper.socket.moderation.queue.query(),
      401,
      "the queue refused on the other instance",
    );
  });

  test("an operator removed by the command is refused on both instances, nothing recorded", async () => {
    const keeper = await account("keeper_removed", true);
    const onOne = accountSocket(one.url, keeper.jar, keeper.address);
    sockets.push(onOne);
    for (const socket of [keeper.socket, onOne.api]) {
      expect((await socket.moderation.queue.query()).groups).toBeArray();
    }
    await operatorCommand("remove", "keeper_removed");
    for (const [name, socket] of [
      ["two", keeper.socket],
      ["one", onOne.api],
    ] as const) {
      await refusedWithin(
        () => socket.moderation.queue.query(),
        403,
        `the queue refused on instance ${name} after the command`,
      );
    }
    expect(
      (
        await failure(
          keeper.socket.moderation.setFeature.mutate({ feature: "bottles", enabled: false }),
        )
      ).status,
    ).toBe(403);
    // The audit log, read over HTTP by an operator who still is one.
    const reviewer = await account("keeper_reviewing", true);
    const { actions, features } = await reviewer.api.moderation.queue.query();
    expect(actions.filter((a) => a.operator === "keeper_removed")).toEqual([]);
    expect(features.bottles).toBe(true);
  });
});
