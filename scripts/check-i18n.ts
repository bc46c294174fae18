// The i18n key check: both dictionaries name the same keys, none is empty, and the generated
// typesafe-i18n files match the dictionaries.
import { spawnSync } from "node:child_process";
import { compareDictionaries } from "../i18n/check";
import en from "../i18n/en/index";
import zhTW from "../i18n/zh-TW/index";

const problems = compareDictionaries(en, zhTW);
const generated = [
  "i18n/i18n-types.ts",
  "i18n/i18n-util.ts",
  "i18n/i18n-util.sync.ts",
  "i18n/i18n-util.async.ts",
  "i18n/i18n-react.tsx",
];
const before = generated.map((f) => Bun.file(f).text());
const run = spawnSync("node", ["node_modules/typesafe-i18n/cli/typesafe-i18n.mjs", "--no-watch"], {
  encoding: "utf8",
});
if (run.status !== 0 || /ERROR/.test(run.stdout + run.stderr)) {
  problems.push(`typesafe-i18n failed:\n${run.stdout}${run.stderr}`);
}
const old = await Promise.all(before);
for (const [i, file] of generated.entries()) {
  if ((await Bun.file(file).text()) !== old[i])
    problems.push(`${file} was out of date (now regenerated; commit it)`);
}
if (problems.length > 0) {
  console.error(`i18n check failed:\n  ${problems.join("\n  ")}`);
  process.exit(1);
}
const count = [...Object.keys(en)].length;
console.log(`i18n check passed: ${count} sections, same keys in en and zh-TW, no empty value`);
