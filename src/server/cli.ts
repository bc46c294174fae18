import { settings, VERSION } from "./config.ts";

export class UsageError extends Error {}

export interface Invocation {
  /** "serve" unless an operator command is named. */
  command: string;
  /** The command's own words, after flags are taken out. */
  args: string[];
  /** Settings given as flags, as environment variables (flags win over the environment). */
  env: Record<string, string>;
  /** Command options such as --hours. */
  options: Record<string, string>;
  help: boolean;
  version: boolean;
}

const settingFlags = new Map<string, string>(
  settings.flatMap((s) => (s.flag ? [[s.flag, s.env] as [string, string]] : [])),
);
const booleanSettings = new Set<string>(
  settings.flatMap((s) => (s.flag && s.switch ? [s.flag] : [])),
);
const commandOptions = new Set(["--hours", "--since"]);

/** Reads `tidings [command] [args] [--flag value]`; refuses what it does not know. */
export function parseArguments(argv: readonly string[]): Invocation {
  const result: Invocation = {
    command: "serve",
    args: [],
    env: {},
    options: {},
    help: false,
    version: false,
  };
  const words: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i] ?? "";
    if (word === "--help" || word === "-h") result.help = true;
    else if (word === "--version" || word === "-v") result.version = true;
    else if (word.startsWith("--")) {
      const [name = "", inline] = word.split(/=(.*)/s, 2);
      const env = settingFlags.get(name);
      if (!env && !commandOptions.has(name)) throw new UsageError(`unknown option ${name}`);
      let value = inline;
      if (value === undefined) {
        if (booleanSettings.has(name)) value = "true";
        else {
          value = argv[i + 1];
          i += 1;
          if (value === undefined || value.startsWith("--"))
            throw new UsageError(`${name} needs a value`);
        }
      }
      if (env) result.env[env] = value;
      else result.options[name.slice(2)] = value;
    } else words.push(word);
  }
  if (words.length > 0) result.command = words[0] ?? "serve";
  result.args = words.slice(1);
  return result;
}

export function helpText(): string {
  const name = (s: (typeof settings)[number]) => (s.flag ? `${s.flag} / ${s.env}` : s.env);
  const width = Math.max(...settings.map((s) => name(s).length));
  const lines = settings.map((s) => `  ${name(s).padEnd(width)}  ${s.help} (default: ${s.shown})`);
  return [
    `Tidings ${VERSION}: anonymous messages in bottles, and a random one-to-one chat.`,
    "",
    "Usage:",
    "  tidings [serve] [options]          serve the site",
    "  tidings reports                    the moderation queue: open reports by bottle and visitor",
    "  tidings operator add|remove <user> make an account an operator (the moderation page)",
    "  tidings hide <bottle> | unhide <bottle>",
    "  tidings ban <visitor-or-ip-hash> [--hours N] | unban <visitor-or-ip-hash>",
    "                                     (without --hours, as long as its escalation calls for)",
    "  tidings stats                      bottles live, drifting, public; open reports; chats now",
    "  tidings contact                    stored contact messages",
    "  tidings backup <file>              a consistent copy of the SQLite database, taken while serving",
    "  tidings restore <file>             put a copy back in place of the database (the site stopped)",
    "  tidings audit [--since 7d|<date>]  what operators did, from the page and these commands",
    "  tidings migrate                    bring the database up to date",
    "  tidings --help | --version",
    "",
    "Settings (flags win over environment variables):",
    ...lines,
  ].join("\n");
}
