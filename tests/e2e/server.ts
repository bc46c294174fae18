import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";

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
      // Off unless a test turns it on (pow.e2e.ts): the other tests also call the API directly,
      // as a script would, to set the scene (throws, accounts).
      POW: "false",
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

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(),
      );
    });
  });
}

/**
 * Two instances on one PostgreSQL database and one Redis (TEST_DB_URL and TEST_REDIS_URL, as
 * `CLUSTER=1 ./scripts/test` starts them), behind a real nginx balancing requests and chat
 * sockets over both, round robin.
 */
export async function startPairBehindNginx(options: { redisUrl?: string } = {}): Promise<E2eSite> {
  const dir = mkdtempSync(join(tmpdir(), "tidings-e2e-nginx-"));
  // nginx's workers may run as another user.
  chmodSync(dir, 0o777);
  const adminUrl = process.env.TEST_DB_URL ?? "";
  const name = `tidings_e2e_${randomBytes(4).toString("hex")}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  await admin.end();
  const dbUrl = new URL(adminUrl);
  dbUrl.pathname = `/${name}`;
  const shared = {
    DB_URL: dbUrl.toString(),
    REDIS_URL: options.redisUrl ?? process.env.TEST_REDIS_URL ?? "",
    REDIS_PREFIX: `e2e-${randomBytes(4).toString("hex")}:`,
    SECRET: randomBytes(24).toString("hex"),
  };
  const instances = await Promise.all([startE2eServer(shared), startE2eServer(shared)]);
  const port = await freePort();
  const upstreams = instances.map((i) => `server ${new URL(i.url).host};`).join(" ");
  // The instances trust X-Forwarded-For; here nginx passes on the one each test's browser sets
  // (its own address), where a site's outer proxy would set the visitor's.
  writeFileSync(
    join(dir, "nginx.conf"),
    `daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/nginx-error.log;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  upstream tidings { ${upstreams} }
  map $http_upgrade $connection_upgrade { default upgrade; '' close; }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://tidings;
      proxy_http_version 1.1;
      proxy_set_header Upgrade $http_upgrade;
      proxy_set_header Connection $connection_upgrade;
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $http_x_forwarded_for;
      proxy_read_timeout 75s;
    }
  }
}
`,
  );
  const nginx = spawn("nginx", ["-p", dir, "-c", join(dir, "nginx.conf")], { stdio: "inherit" });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    if (
      await fetch(`${url}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    // The operator CLI runs against the shared database, with a data folder of its own.
    adminEnv: { ...shared, DATA_DIR: instances[0]?.dataDir ?? dir },
    async stop() {
      nginx.kill("SIGTERM");
      await new Promise((resolve) =>
        nginx.exitCode !== null ? resolve(0) : nginx.once("exit", resolve),
      );
      await Promise.all(instances.map((i) => i.stop()));
      const again = postgres(adminUrl, { max: 1, onnotice: () => {} });
      await again.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await again.end();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A site with empty data, and what the operator CLI needs to reach its database. */
export interface E2eSite {
  url: string;
  adminEnv: Record<string, string>;
  stop(): Promise<void>;
}

/** One server on a free port, or under E2E_CLUSTER=1 two instances behind nginx. */
export async function startSite(): Promise<E2eSite> {
  if (process.env.E2E_CLUSTER === "1") return startPairBehindNginx();
  const one = await startE2eServer();
  return { url: one.url, adminEnv: { DATA_DIR: one.dataDir }, stop: () => one.stop() };
}
