import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { UnsupportedOnEngineError } from "../../db/backend.ts";
import { migrateToLatest, openDatabase } from "../../db/migrate.ts";
import {
  banFromChat,
  coveredKeys,
  oceanStats,
  parseBanKey,
  setBottleHidden,
  unbanFromChat,
} from "../core/admin/operator.ts";
import { moderationQueue, setOperator } from "../core/admin/queue.ts";
import { escalate } from "../core/chat/bans.ts";
import { listContactMessages } from "../core/contact/contact.ts";
import { UsageError } from "./cli.ts";
import type { Config } from "./config.ts";

export const adminCommands = [
  "reports",
  "operator",
  "hide",
  "unhide",
  "ban",
  "unban",
  "stats",
  "contact",
  "backup",
  "migrate",
];

type Print = (line: string) => void;

const when = (ms: number) => new Date(ms).toISOString().replace("T", " ").slice(0, 16);
const oneLine = (text: string, max = 80) => {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

function bottleIdOf(value: string | undefined): number {
  if (!value || !/^[1-9]\d{0,15}$/.test(value))
    throw new UsageError(`expected a bottle id (a whole number), got ${value ?? "nothing"}`);
  return Number(value);
}

function banKeyOf(value: string | undefined): string {
  if (!value || !parseBanKey(value)) {
    throw new UsageError(
      `expected visitor:<id> or ip:<hash> as shown by \`tidings reports\`, got ${value ?? "nothing"}`,
    );
  }
  return value;
}

/** The chats running now, from the serving process (the admin command is another process). */
async function chatsNow(config: Config): Promise<string> {
  const host = config.host === "0.0.0.0" || config.host === "::" ? "127.0.0.1" : config.host;
  try {
    const response = await fetch(`http://${host}:${config.port}/healthz`, {
      signal: AbortSignal.timeout(2000),
    });
    const body = (await response.json()) as { chats?: number };
    return String(body.chats ?? "unknown");
  } catch {
    return "unknown (the site is not running on this port)";
  }
}

/** Runs one operator command against the database in the data folder. */
export async function runAdmin(
  config: Config,
  command: string,
  args: string[],
  options: Record<string, string>,
  print: Print = console.log,
  now = Date.now(),
): Promise<void> {
  if (!adminCommands.includes(command))
    throw new UsageError(`unknown command ${command}; see --help`);
  const expectArgs = (n: number) => {
    if (args.length !== n)
      throw new UsageError(
        `${command} takes ${n === 0 ? "no arguments" : `${n} argument${n > 1 ? "s" : ""}`}`,
      );
  };
  if (command !== "ban" && options.hours !== undefined)
    throw new UsageError("--hours goes with ban");
  const database = openDatabase(config.database);
  const { db } = database;
  try {
    await migrateToLatest(database);
    switch (command) {
      case "migrate": {
        expectArgs(0);
        print("database is up to date");
        return;
      }
      case "reports": {
        expectArgs(0);
        // The moderation page's queue: child safety first, then the newest.
        const groups = await moderationQueue(db);
        if (groups.length === 0) print("no open reports");
        for (const g of groups) {
          const reasons = Object.entries(g.reasons)
            .map(([reason, n]) => `${reason} ×${n}`)
            .join(", ");
          const extra = g.kind === "visitor" ? ` ip:${g.ipKey}` : g.hidden ? " (hidden)" : "";
          print(
            `${when(g.latestAt)}  ${g.childSafety ? "CHILD SAFETY  " : ""}${g.subject}${extra}  ${g.reporters} reporter${g.reporters === 1 ? "" : "s"}  ${reasons}${g.verdict === "unsafe" ? "  UNSAFE" : ""}`,
          );
          for (const r of g.reports) print(`    #${r.id} ${r.reason}: ${oneLine(r.text)}`);
        }
        return;
      }
      case "operator": {
        expectArgs(2);
        const [verb, username = ""] = args;
        if (verb !== "add" && verb !== "remove") {
          throw new UsageError("operator takes add or remove, then a username");
        }
        if (!(await setOperator(db, username, verb === "add")))
          throw new UsageError(`no account named ${username}`);
        print(
          verb === "add" ? `${username} is an operator` : `${username} is no longer an operator`,
        );
        return;
      }
      case "hide":
      case "unhide": {
        expectArgs(1);
        const id = bottleIdOf(args[0]);
        if (!(await setBottleHidden(db, id, command === "hide", now)))
          throw new UsageError(
            command === "hide" ? `no bottle ${id}` : `no bottle ${id} to put back (sunk ones stay)`,
          );
        print(`bottle ${id} ${command === "hide" ? "hidden" : "visible again"}`);
        return;
      }
      case "ban": {
        expectArgs(1);
        const key = banKeyOf(args[0]);
        const hours = Number(options.hours);
        if (
          options.hours !== undefined &&
          (!Number.isFinite(hours) || hours <= 0 || hours > 24 * 365)
        ) {
          throw new UsageError("--hours takes a number more than 0, at most 8760");
        }
        // Without --hours, the ban is as long as the key's escalation calls for.
        const until =
          options.hours === undefined
            ? await escalate(db, await coveredKeys(db, key, now), now)
            : now + hours * 60 * 60 * 1000;
        const keys = await banFromChat(db, key, until, now);
        for (const banned of keys) print(`${banned} banned from chat until ${when(until)} UTC`);
        return;
      }
      case "unban": {
        expectArgs(1);
        const key = banKeyOf(args[0]);
        const lifted = await unbanFromChat(db, key, now);
        if (lifted.length === 0) print(`${key} was not banned`);
        for (const k of lifted) print(`${k} may chat again`);
        return;
      }
      case "stats": {
        expectArgs(0);
        const stats = await oceanStats(db, now);
        print(`bottles live:      ${stats.live}`);
        print(`bottles drifting:  ${stats.drifting}`);
        print(`bottles public:    ${stats.public}`);
        print(`reports open:      ${stats.openReports}`);
        print(`chats now:         ${await chatsNow(config)}`);
        return;
      }
      case "contact": {
        expectArgs(0);
        const messages = await listContactMessages(db);
        if (messages.length === 0) print("no contact messages");
        for (const m of messages)
          print(
            `${when(m.created_at)}  ${m.name} <${m.email}> (${m.locale})\n    ${oneLine(m.message, 200)}`,
          );
        return;
      }
      case "backup": {
        expectArgs(1);
        const target = resolve(args[0] ?? "");
        if (existsSync(target)) throw new UsageError(`${target} exists already; name a new file`);
        try {
          await database.backup(target);
        } catch (error) {
          if (error instanceof UnsupportedOnEngineError) throw new UsageError(error.message);
          throw error;
        }
        print(`backed up to ${target}`);
        return;
      }
    }
  } finally {
    await database.close();
  }
}
