import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";

/** Settings every browser test's site runs with. */
const SITE_ENV = {
  TRUST_PROXY: "true",
  SITE_URL: "https://tidings.example.org",
  CONTACT_EMAIL: "hello@tidings.example.org",
};

/** Starts `bun src/server/main.ts` and answers its URL once it listens. */
function startServer(env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn("bun", ["src/server/main.ts"], {
    env: { ...process.env, PORT: "0", HOST: "127.0.0.1", ...SITE_ENV, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("server did not start in 30 s")), 30_000);
    let seen = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(seen);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve({ url: match[1].replace("localhost", "127.0.0.1"), child });
      }
    });
    child.on("exit", (code) => reject(new Error(`server exited with ${code}: ${seen}`)));
  });
}

function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  child.kill("SIGTERM");
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

function freePort(): Promise<number> {
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
async function startPairBehindNginx(dir: string) {
  const adminUrl = process.env.TEST_DB_URL ?? "";
  const name = `tidings_e2e_${randomBytes(4).toString("hex")}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  await admin.end();
  const dbUrl = new URL(adminUrl);
  dbUrl.pathname = `/${name}`;
  const shared = {
    DB_URL: dbUrl.toString(),
    REDIS_URL: process.env.TEST_REDIS_URL ?? "",
    REDIS_PREFIX: `e2e-${randomBytes(4).toString("hex")}:`,
    SECRET: randomBytes(24).toString("hex"),
  };
  const instances = await Promise.all(
    [1, 2].map((n) => startServer({ ...shared, DATA_DIR: join(dir, `instance-${n}`) })),
  );
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
    async stop() {
      await stopProcess(nginx);
      await Promise.all(instances.map((i) => stopProcess(i.child)));
      const again = postgres(adminUrl, { max: 1, onnotice: () => {} });
      await again.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await again.end();
    },
  };
}

/**
 * Starts the site for the whole run, with empty data: one server on a free port, or under
 * E2E_CLUSTER=1 two instances behind nginx.
 */
export default async function globalSetup(): Promise<() => Promise<void>> {
  const dir = mkdtempSync(join(tmpdir(), "tidings-e2e-"));
  // nginx's workers may run as another user.
  chmodSync(dir, 0o777);
  if (process.env.E2E_CLUSTER === "1") {
    const pair = await startPairBehindNginx(dir);
    process.env.TIDINGS_URL = pair.url;
    return async () => {
      await pair.stop();
      rmSync(dir, { recursive: true, force: true });
    };
  }
  const { url, child } = await startServer({ DATA_DIR: dir });
  process.env.TIDINGS_URL = url;
  return async () => {
    await stopProcess(child);
    rmSync(dir, { recursive: true, force: true });
  };
}
