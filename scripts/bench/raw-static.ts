/**
 * Baseline for first contentful paint: a static HTML page of a given size (STATIC_BYTES, the
 * size of the document the app's /en builds in the browser), headings and paragraphs that
 * paint without any script, served by a bare Bun.serve.
 *
 *   STATIC_BYTES=20000 bun scripts/bench/raw-static.ts
 */
if (import.meta.main) {
  const target = Number(process.env.STATIC_BYTES ?? 100_000);
  const paragraph =
    "<p>Write an anonymous message, set it adrift, and find one from a stranger somewhere in the world. 寫下一段匿名訊息，讓它漂流，然後拾起遠方陌生人的一封信。</p>\n";
  let body = "<h1>Tidings</h1>\n";
  while (body.length < target) body += paragraph;
  const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Static</title><style>body{font-family:system-ui,sans-serif;margin:2rem;background:#06243f;color:#fff}</style></head><body>${body}</body></html>`;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () => new Response(page, { headers: { "Content-Type": "text/html; charset=utf-8" } }),
  });
  console.log(JSON.stringify({ ready: true, url: server.url.origin, pid: process.pid }));
  process.on("SIGTERM", () => {
    server.stop(true);
    process.exit(0);
  });
}
