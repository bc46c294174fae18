/**
 * Baseline for the compiled binary: the smallest useful Bun server, compiled the same way
 * (`bun build --compile --minify`), answering /healthz. Prints the address it listens on.
 *
 *   raw-hello --port 0
 */
const at = process.argv.indexOf("--port");
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: at === -1 ? 0 : Number(process.argv[at + 1]),
  fetch: (request) =>
    new URL(request.url).pathname === "/healthz"
      ? Response.json({ ok: true })
      : new Response("not found", { status: 404 }),
});
console.log(`raw-hello is listening on ${server.url.origin}`);
process.on("SIGTERM", () => {
  server.stop(true);
  process.exit(0);
});
