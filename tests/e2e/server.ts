import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface E2eServer {
  url: string;
  dataDir: string;
  stop(): Promise<void>;
}

/** Starts a real server on a free port with an empty data folder of its own. */
export async function startE2eServer(env: Record<string, string> = {}): Promise<E2eServer> {
  const dataDir = mkdtempSync(join(tmpdir(), "tidings-e2e-"));
  const server: ChildProcess = spawn("bun", ["src/server/main.ts"], {
    env: {
      ...process.env,
      PORT: "0",
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      TRUST_PROXY: "true",
      SITE_URL: "https://tidings.example.org",
      CONTACT_EMAIL: "hello@tidings.example.org",
      // The suite's own instances: stopped at its end, with no load balancer to let them go.
      SHUTDOWN_DRAIN: "0s",
      ...env,
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("server did not start in 30 s")), 30_000);
    let seen = "";
    server.stdout?.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(seen);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1].replace("localhost", "127.0.0.1"));
      }
    });
    server.on("exit", (code) => reject(new Error(`server exited with ${code}: ${seen}`)));
  });
  return {
    url,
    dataDir,
    async stop() {
      server.kill("SIGTERM");
      await new Promise((resolve) => server.once("exit", resolve));
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
