import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTRPCClient, httpLink } from "@trpc/client";
import { type RunningApp, startApp } from "../../src/server/app.ts";
import { loadConfig } from "../../src/server/config.ts";
import type { AppRouter } from "../../src/server/trpc/routers/index.ts";

export interface TestServer {
  app: RunningApp;
  url: string;
  dataDir: string;
  close(): Promise<void>;
}

/** A real server on port 0 with its own SQLite file in a fresh temporary folder. */
export async function startTestServer(env: Record<string, string> = {}): Promise<TestServer> {
  const dataDir = mkdtempSync(join(tmpdir(), "tidings-test-"));
  const config = loadConfig({ PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir, ...env });
  const app = await startApp(config);
  return {
    app,
    url: app.url.toString().replace(/\/$/, ""),
    dataDir,
    async close() {
      await app.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A tRPC client as the web uses it, with a fixed cookie jar of one visitor cookie. */
export function trpcClient(url: string, headers: Record<string, string> = {}) {
  return createTRPCClient<AppRouter>({
    links: [httpLink({ url: `${url}/trpc`, headers: () => headers })],
  });
}
