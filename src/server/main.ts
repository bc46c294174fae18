import { forTerminal } from "../common/controls.ts";
import { adminCommands, runAdmin } from "./admin.ts";
import { startApp } from "./app.ts";
import { helpText, parseArguments, UsageError } from "./cli.ts";
import { ConfigError, loadConfig, VERSION } from "./config.ts";

/** After the drain period, the process ends within this long whatever is still running. */
const SHUTDOWN_LIMIT_MS = 5000;

async function main(): Promise<void> {
  // Whatever this process creates (the data folder, the database and its log, snapshots, the
  // secret) holds visitors' data: its owner's alone, whatever the shell's umask was.
  process.umask(0o077);
  const invocation = parseArguments(Bun.argv.slice(2));
  if (invocation.help) {
    console.log(helpText());
    return;
  }
  if (invocation.version) {
    console.log(VERSION);
    return;
  }
  const config = loadConfig({ ...process.env, ...invocation.env });
  if (invocation.command !== "serve") {
    if (!adminCommands.includes(invocation.command))
      throw new UsageError(`unknown command ${invocation.command}; see --help`);
    await runAdmin(config, invocation.command, invocation.args, invocation.options);
    return;
  }
  if (invocation.args.length > 0) throw new UsageError("serve takes no arguments");

  const app = await startApp(config);
  const shown = config.host === "0.0.0.0" || config.host === "::" ? "localhost" : config.host;
  console.log(`Tidings ${config.version} is listening on http://${shown}:${app.server.port}`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    // SIGTERM is a load balancer's or a service manager's: the instance is let go first.
    // SIGINT is someone at the terminal, who wants it stopped now.
    const drainMs = signal === "SIGTERM" ? config.shutdownDrainMs : 0;
    if (drainMs > 0) {
      console.log(
        `${signal}: not ready any more; serving ${drainMs / 1000} s more before stopping`,
      );
      await app.drain();
    }
    console.log(`${signal}: finishing requests, telling chat partners, closing the database`);
    setTimeout(() => {
      console.error("shutdown took too long; exiting");
      process.exit(1);
    }, SHUTDOWN_LIMIT_MS).unref();
    await app.stop();
    process.exit(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof UsageError) {
    // A refusal may quote what it was given (a file's complaint, an argument).
    console.error(forTerminal(error.message));
    process.exit(2);
  }
  console.error(error);
  process.exit(1);
});
