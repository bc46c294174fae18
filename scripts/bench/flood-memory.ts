/**
 * One socket's flood, measured as the server's memory: a visitor in a chat sends distinct
 * 1,000-character messages as fast as frames of ten calls allow (30,000 in about ten seconds by
 * default), and the server process's resident memory is read from /proc before, right after,
 * and once it has settled. Usage: bun scripts/bench/flood-memory.ts [messages] [seconds]
 *
 * The server runs as a process of its own from the working tree, or from TIDINGS_ROOT, so the
 * same script measures any commit checked out beside it.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chatTester, isType, listening, pairListening } from "../../tests/helpers/chat.ts";

const messages = Number(process.argv[2] ?? 30_000);
const seconds = Number(process.argv[3] ?? 10);
const root = process.env.TIDINGS_ROOT ?? join(import.meta.dir, "..", "..");

function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

const dataDir = mkdtempSync(join(tmpdir(), "tidings-flood-"));
const server = spawn(process.execPath, ["src/server/main.ts"], {
  cwd: root,
  env: {
    ...process.env,
    PORT: "0",
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    TRUST_PROXY: "true",
    LOG_FORMAT: "off",
  },
  stdio: ["ignore", "pipe", "inherit"],
});
try {
  const url = await new Promise<string>((resolve, reject) => {
    let seen = "";
    server.stdout?.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(seen);
      if (match?.[1]) resolve(match[1].replace(/\/$/, "").replace("localhost", "127.0.0.1"));
    });
    server.on("exit", (code) => reject(new Error(`server exited with ${code}`)));
  });
  const pid = server.pid ?? 0;
  const flooder = chatTester(url, { address: "198.51.100.10" });
  const partner = chatTester(url, { address: "198.51.100.11" });
  await Promise.all([listening(flooder), listening(partner)]);
  await pairListening(partner, flooder);
  await partner.waitFor(isType("matched"));
  // Warm: the first messages and answers compile what they need.
  await flooder.api.chat.send.mutate({ content: "hello there, a first message" });
  Bun.gc(true);
  await Bun.sleep(1000);
  const before = rssOf(pid);
  const started = performance.now();
  let delivered = 0;
  const frames = Math.ceil(messages / 10);
  const perFrameMs = (seconds * 1000) / frames;
  for (let frame = 0; frame < frames; frame++) {
    const due = started + frame * perFrameMs;
    const wait = due - performance.now();
    if (wait > 0) await Bun.sleep(wait);
    const answers = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        flooder.api.chat.send.mutate({
          content: `${frame * 10 + i} ${"a distinct flood, ".repeat(60)}`.slice(0, 1000),
        }),
      ),
    );
    delivered += answers.filter((a) => a.status === "fulfilled").length;
  }
  const took = (performance.now() - started) / 1000;
  const right = rssOf(pid);
  await Bun.sleep(5000);
  const settled = rssOf(pid);
  console.log(
    JSON.stringify({
      messages: frames * 10,
      seconds: Number(took.toFixed(1)),
      delivered,
      rssBefore: mb(before),
      rssAfter: mb(right),
      rssSettled: mb(settled),
      growth: mb(settled - before),
    }),
  );
  flooder.close();
  partner.close();
} finally {
  server.kill("SIGTERM");
  await new Promise((resolve) => server.once("exit", resolve));
  rmSync(dataDir, { recursive: true, force: true });
}
