import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";

export interface ServerProcess {
  url: string;
  process: Subprocess<"ignore", "pipe", "pipe">;
  dataDir: string;
  /** Everything the server has written to stdout and stderr so far. */
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** The real server as its own process (as an operator runs it), with its output kept. */
export async function startServerProcess(
  env: Record<string, string> = {},
  dataDir = mkdtempSync(join(tmpdir(), "tidings-proc-")),
): Promise<ServerProcess> {
  // The Bun running the tests (the pinned one from .tools/ when bun is not on PATH). No drain by
  // default: a test that stops a site is its only client.
  const child = Bun.spawn([process.execPath, "src/server/main.ts"], {
    env: {
      ...process.env,
      PORT: "0",
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      SHUTDOWN_DRAIN: "0s",
      // As on the test servers (helpers/server.ts): its tests call the API as a script would.
      POW: "false",
      ...env,
    },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  let output = "";
  let listening: ((url: string) => void) | undefined;
  const read = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    const reader = stream.getReader();
    while (true) {
      const { done, value } = await reader.read();
      if (done) return;
      output += decoder.decode(value, { stream: true });
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match?.[1]) listening?.(match[1].replace("localhost", "127.0.0.1"));
    }
  };
  void read(child.stdout);
  void read(child.stderr);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start in 30 s: ${output}`)), 30_000);
    listening = (found) => {
      clearTimeout(timer);
      resolve(found);
    };
    void child.exited.then((code) => reject(new Error(`server exited with ${code}: ${output}`)));
  });
  listening = undefined;
  return {
    url,
    process: child,
    dataDir,
    output: () => output,
    async stop(signal = "SIGTERM") {
      child.kill(signal);
      await child.exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
