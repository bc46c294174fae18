import { existsSync } from "node:fs";
import { join } from "node:path";
import { isLocale, type Locale } from "../common/locales.ts";

export interface Asset {
  body: Uint8Array<ArrayBuffer>;
  /** The same bytes gzipped, when that makes them smaller (scripts, styles, SVG). */
  gzip: Uint8Array<ArrayBuffer> | undefined;
  type: string;
  etag: string;
}

export interface WebAssets {
  /** The app's HTML as Bun's bundler wrote it, without its scripts (see appScripts). */
  html: string;
  /** The app's first script, then the modules it imports, as Bun's bundler named them. */
  appScripts: string[];
  /** The small script that asks for them once the page is painted (src/web/start.ts). */
  start: string;
  /** Hashed files by path ("/chunk-1a2b3c.js"). */
  files: Map<string, Asset>;
  /** Each language's dictionary chunk, so a page can ask for its own early. */
  dictionaries: Partial<Record<Locale, string>>;
  /** The scripts a first load of each page imports (see PagePreloads). */
  preloads: PagePreloads;
}

/**
 * The chunks each lazily loaded page imports beyond the app's first script, by the page's
 * module name ("discover", "auth"). Listed in the page beside the app's own (see appScripts),
 * they are fetched with the app's instead of after the app has run and asked.
 */
export type PagePreloads = Record<string, string[]>;

/** The bundler's output as plain data: what a compiled binary carries inside it. */
export interface WebBuild {
  files: BuiltFile[];
  /** The path of src/web/start.ts's bundle. */
  start: string;
  dictionaries: Partial<Record<Locale, string>>;
  preloads: PagePreloads;
}

export interface BuiltFile {
  path: string;
  type: string;
  base64: string;
  /** Its gzip, made at build time, when that is smaller (scripts, styles, SVG). */
  gzipBase64?: string;
}

const COMPRESSIBLE = /^(text\/|application\/(javascript|json)|image\/svg)/;

const WEB_ENTRY = join(import.meta.dir, "..", "web", "index.html");
const POW_WORKER_ENTRY = join(import.meta.dir, "..", "web", "pow", "worker.ts");
const START_ENTRY = join(import.meta.dir, "..", "web", "start.ts");

/**
 * How the front end is bundled; the benchmarks read the same build's metafile. `powWorker` is
 * the proof-of-work worker's path, which the pages that solve read from POW_WORKER_URL.
 */
export function webBuildOptions(entry: string = WEB_ENTRY, powWorker = "") {
  return {
    entrypoints: [entry],
    target: "browser",
    splitting: true,
    minify: true,
    publicPath: "/",
    define: {
      "process.env.NODE_ENV": JSON.stringify("production"),
      "process.env.POW_WORKER_URL": JSON.stringify(powWorker),
    },
  } satisfies Bun.BuildConfig;
}

/**
 * A script bundled on its own, one hashed file served from our origin: the proof-of-work worker
 * (Bun's bundler does not follow `new Worker`) and the start script (a classic script the HTML
 * names itself).
 */
async function buildAlone(
  entry: string,
  naming: string,
  format: "esm" | "iife" = "esm",
): Promise<Bun.BuildArtifact> {
  const result = await Bun.build({
    entrypoints: [entry],
    target: "browser",
    minify: true,
    naming,
    format,
    throw: false,
  });
  const [output] = result.outputs;
  if (!result.success || !output) {
    throw new Error(`${naming} bundle failed:\n${result.logs.map(String).join("\n")}`);
  }
  return output;
}

/**
 * Bundles the front end from src/web/index.html with code splitting, so a first visit loads
 * the shell and the page it asked for, and every other page and language arrives when needed.
 * (Bun's HTML import in Bun.serve routes bundles into a single chunk, without splitting.)
 */
export async function buildWeb(entry: string = WEB_ENTRY): Promise<WebBuild> {
  if (!existsSync(entry)) {
    throw new Error(
      `the front end's source (${entry}) is not here; a binary must be built with \`bun run build\``,
    );
  }
  const worker = await buildAlone(POW_WORKER_ENTRY, "pow-worker-[hash].[ext]");
  const start = await buildAlone(START_ENTRY, "start-[hash].[ext]", "iife");
  const result = await Bun.build({
    ...webBuildOptions(entry, publicPath(worker.path)),
    metafile: true,
    throw: false,
  });
  if (!result.success)
    throw new Error(`front end bundle failed:\n${result.logs.map(String).join("\n")}`);
  const files = await Promise.all(
    [...result.outputs, worker, start].map(async (output) => {
      const body = new Uint8Array(await output.arrayBuffer());
      const gzip = COMPRESSIBLE.test(output.type) ? Bun.gzipSync(body, { level: 9 }) : undefined;
      return {
        path: publicPath(output.path),
        type: output.type,
        base64: Buffer.from(body).toString("base64"),
        ...(gzip && gzip.byteLength < body.byteLength
          ? { gzipBase64: Buffer.from(gzip).toString("base64") }
          : {}),
      };
    }),
  );
  const dictionaries: WebBuild["dictionaries"] = {};
  const meta = result.metafile as unknown as { outputs: Record<string, MetaOutput> };
  for (const [path, output] of Object.entries(meta.outputs)) {
    const locale = /i18n\/([^/]+)\/index\.ts$/.exec(output.entryPoint ?? "")?.[1];
    if (isLocale(locale)) dictionaries[locale] = publicPath(path);
  }
  return { files, start: publicPath(start.path), dictionaries, preloads: preloadsOf(meta.outputs) };
}

interface MetaOutput {
  entryPoint?: string;
  imports?: Array<{ path: string; kind: string }>;
}

/** From the build's metafile: what each page's script imports statically, all the way down. */
function preloadsOf(outputs: Record<string, MetaOutput>): PagePreloads {
  const closure = (start: string, into = new Set<string>()) => {
    for (const imported of outputs[start]?.imports ?? []) {
      if (imported.kind !== "import-statement" || into.has(imported.path)) continue;
      into.add(imported.path);
      closure(imported.path, into);
    }
    return into;
  };
  const scripts = Object.entries(outputs).filter(([path]) => path.endsWith(".js"));
  const app = scripts.find(([, output]) => output.entryPoint?.endsWith("index.html"))?.[0];
  const appImports = app ? closure(app) : new Set<string>();
  const pages: PagePreloads = {};
  for (const [path, output] of scripts) {
    const page = /web\/routes\/([^/]+)\.tsx$/.exec(output.entryPoint ?? "")?.[1];
    if (!page) continue;
    pages[page] = [path, ...closure(path)].filter((p) => !appImports.has(p)).map(publicPath);
  }
  return pages;
}

const publicPath = (outputPath: string) => `/${outputPath.replace(/^\.\//, "")}`;

let embedded: WebBuild | undefined;

/** A compiled binary hands over the bundle it was built with, before the server starts. */
export function useEmbeddedWeb(build: WebBuild): void {
  embedded = build;
}

let loading: Promise<WebAssets> | undefined;

/** The front end: the embedded bundle in a binary, otherwise built once per process. */
export function loadWebAssets(): Promise<WebAssets> {
  loading ??= (async () => toAssets(embedded ?? (await buildWeb())))();
  return loading;
}

function toAssets(built: WebBuild): WebAssets {
  let html: string | undefined;
  const files = new Map<string, Asset>();
  for (const file of built.files) {
    const body = new Uint8Array(Buffer.from(file.base64, "base64"));
    if (file.path === "/index.html") {
      html = new TextDecoder().decode(body);
      continue;
    }
    files.set(file.path, {
      body,
      gzip: file.gzipBase64 ? new Uint8Array(Buffer.from(file.gzipBase64, "base64")) : undefined,
      type: file.type,
      // Weak: the gzipped and the plain bytes are the same file under one tag.
      etag: `W/"${Bun.hash(body).toString(36)}"`,
    });
  }
  if (html === undefined) throw new Error("front end bundle has no index.html");
  // The app's scripts leave the HTML: the start script asks for them once the page is painted.
  let entry: string | undefined;
  const imports: string[] = [];
  html = html.replace(
    /<script type="module"[^>]*\ssrc="([^"]+)"[^>]*><\/script>|<link rel="modulepreload"[^>]*\shref="([^"]+)"[^>]*>/g,
    (_, script: string | undefined, imported: string | undefined) => {
      if (script) entry = script;
      else if (imported) imports.push(imported);
      return "";
    },
  );
  if (!entry) throw new Error("front end bundle's index.html names no script");
  return {
    html,
    appScripts: [entry, ...imports],
    start: built.start,
    files,
    dictionaries: built.dictionaries,
    preloads: built.preloads,
  };
}
