import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { UnsupportedOnEngineError } from "../../db/backend.ts";
import { migrateToLatest, openDatabase } from "../../db/migrate.ts";
import { fieldForTerminal as field, forTerminal } from "../common/controls.ts";
import { audited, COMMAND_LINE, detailsText, listActions } from "../core/admin/audit.ts";
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
import { judgeSnapshots, newestSnapshot, restoreSnapshot, takeLockAlone } from "./backups.ts";
import { UsageError } from "./cli.ts";
import { type Config, parseDuration } from "./config.ts";

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
  "restore",
  "audit",
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
    return `unknown (no site answered on port ${config.port}; give its port with --port or PORT)`;
  }
}

/** A length of time for people: "3 h", "2 d", "40 min". */
function age(ms: number): string {
  const minutes = Math.max(0, Math.round(ms / 60_000));
  if (minutes < 120) return `${minutes} min`;
  const hours = Math.round(minutes / 60);
  return hours < 48 ? `${hours} h` : `${Math.round(hours / 24)} d`;
}

/** `--since`: a date (2026-01-31, or an ISO time) or a length of time back (7d, 12h). */
function sinceOf(value: string | undefined, now: number): number {
  if (value === undefined) return now - 30 * 24 * 60 * 60 * 1000;
  const back = parseDuration(value);
  if (back !== null) return now - back;
  const at = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || !Number.isFinite(at))
    throw new UsageError(
      `--since takes a date (2026-01-31) or a length of time (7d), got ${value}`,
    );
  return at;
}

/**
 * Puts a snapshot in place of the SQLite database. Refused while a site serves from this data
 * folder (it holds the serving lock), so the running site never has its file swapped under it.
 */
async function restore(config: Config, file: string, print: Print, now: number): Promise<void> {
  if (config.database.engine !== "sqlite") {
    throw new UsageError(
      "this site's database is PostgreSQL: restore a pg_dump copy with pg_restore instead.",
    );
  }
  if (!existsSync(file)) throw new UsageError(`no file ${file}`);
  const lock = takeLockAlone(config.dataDir);
  if (!lock) {
    throw new UsageError(
      `the site is running from ${config.dataDir}: stop it first, then restore, then start it again`,
    );
  }
  try {
    const kept = await restoreSnapshot(file, config.database.file, now);
    print(`restored ${file} to ${config.database.file}`);
    print(
      kept ? `the database it replaced is kept as ${kept}` : "there was no database to replace",
    );
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  } finally {
    lock.release();
  }
}

/** Runs one operator command against the database in the data folder. */
export async function runAdmin(
  config: Config,
  command: string,
  args: string[],
  options: Record<string, string>,
  write: Print = console.log,
  now = Date.now(),
): Promise<void> {
  // Whatever is stored was written by visitors: it reaches the terminal unable to steer it.
  const print: Print = (line) => write(forTerminal(line));
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
  if (command !== "audit" && options.since !== undefined)
    throw new UsageError("--since goes with audit");
  // Restore works on the file itself, with no connection open to it.
  if (command === "restore") {
    expectArgs(1);
    await restore(config, resolve(args[0] ?? ""), print, now);
    return;
  }
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
            .map(([reason, n]) => `${field(reason)} ×${n}`)
            .join(", ");
          const extra =
            g.kind === "visitor" ? ` ip:${field(g.ipKey)}` : g.hidden ? " (hidden)" : "";
          print(
            `${when(g.latestAt)}  ${g.childSafety ? "CHILD SAFETY  " : ""}${field(g.subject)}${extra}  ${g.reporters} reporter${g.reporters === 1 ? "" : "s"}  ${reasons}${g.verdict === "unsafe" ? "  UNSAFE" : ""}`,
          );
          for (const r of g.reports) print(`    #${r.id} ${field(r.reason)}: ${oneLine(r.text)}`);
        }
        return;
      }
      case "operator": {
        expectArgs(2);
        const [verb, username = ""] = args;
        if (verb !== "add" && verb !== "remove") {
          throw new UsageError("operator takes add or remove, then a username");
        }
        await audited(db, COMMAND_LINE, `account:${username}`, now, async (trx) => {
          if (!(await setOperator(trx, username, verb === "add", now)))
            throw new UsageError(`no account named ${username}`);
          return { action: verb === "add" ? "operator add" : "operator remove", details: {} };
        });
        print(
          verb === "add" ? `${username} is an operator` : `${username} is no longer an operator`,
        );
        return;
      }
      case "hide":
      case "unhide": {
        expectArgs(1);
        const id = bottleIdOf(args[0]);
        await audited(db, COMMAND_LINE, `bottle:${id}`, now, async (trx) => {
          const done = await setBottleHidden(trx, id, command === "hide", now);
          if (!done)
            throw new UsageError(
              command === "hide"
                ? `no bottle ${id}`
                : `no bottle ${id} to put back (sunk ones stay)`,
            );
          return command === "hide"
            ? { action: "hide", details: done }
            : { action: "unhide", details: {} };
        });
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
        const { details } = await audited(db, COMMAND_LINE, key, now, async (trx) => {
          // Without --hours, the ban is as long as the key's escalation calls for.
          const until =
            options.hours === undefined
              ? await escalate(trx, await coveredKeys(trx, key, now), now)
              : now + hours * 60 * 60 * 1000;
          const keys = await banFromChat(trx, key, until, now);
          return { action: "ban" as const, details: { keys, until } };
        });
        for (const banned of details.keys)
          print(`${banned} banned from chat until ${when(details.until)} UTC`);
        return;
      }
      case "unban": {
        expectArgs(1);
        const key = banKeyOf(args[0]);
        const { details } = await audited(db, COMMAND_LINE, key, now, async (trx) => ({
          action: "unban" as const,
          details: { lifted: await unbanFromChat(trx, key, now) },
        }));
        const { lifted } = details;
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
        if (database.engine === "sqlite") {
          const newest = newestSnapshot(config.backups.dir, now);
          print(
            `last backup:       ${newest ? `${when(newest.takenAt)} UTC (${age(now - newest.takenAt)} ago), ${newest.file}` : `none in ${config.backups.dir}`}`,
          );
          for (const file of judgeSnapshots(config.backups.dir, now).future)
            print(`WARNING: ${file} is dated in the future; not counted as the newest backup`);
        }
        return;
      }
      case "audit": {
        expectArgs(0);
        const since = sinceOf(options.since, now);
        const actions = await listActions(db, { since, limit: 10_000 });
        if (actions.length === 0) print(`no moderation actions since ${when(since)} UTC`);
        for (const a of actions) {
          print(
            `${when(a.created_at)}  ${field(a.operator)}  ${field(a.action)}  ${field(a.subject)}  ${field(detailsText(a.details))}`.trimEnd(),
          );
        }
        return;
      }
      case "contact": {
        expectArgs(0);
        const messages = await listContactMessages(db);
        if (messages.length === 0) print("no contact messages");
        for (const m of messages)
          print(
            `${when(m.created_at)}  ${field(m.name)} <${field(m.email)}> (${field(m.locale)})\n    ${oneLine(m.message, 200)}`,
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
