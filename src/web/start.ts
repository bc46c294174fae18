/**
 * Starts the app once the page the server drew is on screen. The app's scripts are asked for
 * only then, so on a slow connection the page's words and styles do not share the line with
 * them, and the visitor reads what the page is for sooner. The page lists them in
 * #app-scripts: the app's first script, then the modules it and this page import.
 *
 * A classic script of its own (see src/server/assets.ts), run after the page is parsed.
 */
const list = document.getElementById("app-scripts")?.textContent;
const [entry, ...imports] = list ? (JSON.parse(list) as string[]) : [];

function start() {
  if (!entry) return;
  const script = document.createElement("script");
  script.type = "module";
  script.crossOrigin = "";
  script.src = entry;
  document.head.append(script);
  for (const href of imports) {
    const link = document.createElement("link");
    link.rel = "modulepreload";
    link.crossOrigin = "";
    link.href = href;
    document.head.append(link);
  }
}

// A task queued from a frame's callback runs once that frame is painted. A hidden tab paints
// no frames: it starts at once, so the page is ready when the visitor turns to it.
if (document.visibilityState === "hidden") start();
else requestAnimationFrame(() => setTimeout(start, 0));
