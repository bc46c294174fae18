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

let started = false;
function start() {
  if (started || !entry) return;
  started = true;
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

// The browser's own word that the page's first words are on screen. A hidden tab paints
// nothing, and a browser that does not say starts at once; in case no word comes, a second
// after this script ran.
if (
  document.visibilityState === "hidden" ||
  !PerformanceObserver.supportedEntryTypes?.includes("paint")
) {
  start();
} else {
  new PerformanceObserver(start).observe({ type: "paint", buffered: true });
  setTimeout(start, 1000);
}
