/**
 * `bun run build [--outfile dist/tidings]`: the self-hosted binary. The front end is bundled
 * first (with code splitting, which `--compile`'s own HTML bundling does not do) and written
 * into a generated entry module that hands it to the server before it starts.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { buildWeb } from "../src/server/assets.ts";

const root = resolve(import.meta.dir, "..");
const args = process.argv.slice(2);
const outfileAt = args.indexOf("--outfile");
const outfile = resolve(outfileAt >= 0 ? (args[outfileAt + 1] ?? "") : join(root, "dist/tidings"));

const started = performance.now();
const web = await buildWeb();
const generated = join(root, "dist", `.build-${process.pid}`);
mkdirSync(generated, { recursive: true });
const importPath = (file: string) => JSON.stringify(`./${relative(generated, join(root, file))}`);
// Two modules, so the bundle is registered before main.ts (evaluated after it) starts serving.
writeFileSync(
  join(generated, "web.ts"),
  `import { useEmbeddedWeb } from ${importPath("src/server/assets.ts")};\nuseEmbeddedWeb(${JSON.stringify(web)});\n`,
);
writeFileSync(
  join(generated, "entry.ts"),
  `import "./web.ts";\nimport ${importPath("src/server/main.ts")};\n`,
);

const compile = Bun.spawnSync(
  [
    process.execPath,
    "build",
    "--compile",
    "--minify",
    join(generated, "entry.ts"),
    "--outfile",
    outfile,
  ],
  { cwd: root, stdout: "inherit", stderr: "inherit" },
);
rmSync(generated, { recursive: true, force: true });
if (compile.exitCode !== 0) process.exit(compile.exitCode ?? 1);
console.log(
  `built ${relative(process.cwd(), outfile) || outfile} (front end: ${web.files.length} files) in ${Math.round(performance.now() - started)} ms`,
);
