/**
 * `bun scripts/bench/contacts.ts [--quick]`: what the contact-detail check costs per chat
 * message (the send path runs it for every one), with the pre-check and without it, on a short
 * and a long ordinary message and on 1,000-character texts built to be slow; what a repeat key
 * and a fingerprint cost; and how many ordinary texts each top-level-domain list reads as a
 * link (linkify-it's own list with the abused gTLDs, against the full `tlds` list).
 */
import allTlds from "tlds";
import { linkFinder, linksAndAddresses } from "../../src/core/moderation/contact-links.ts";
import { contactText } from "../../src/core/moderation/contact-text.ts";
import {
  cannotHoldContactDetails,
  contactDetailsInFull,
  hasContactDetails,
  nearDuplicate,
  repeatKey,
  sameText,
  textFingerprint,
} from "../../src/core/moderation/contacts.ts";
import forms from "../../tests/fixtures/contact-forms.json";
import ordinary from "../../tests/fixtures/ordinary-texts.json";

const quick = process.argv.includes("--quick");
const ROUNDS = quick ? 1 : 5;
const BUDGET_MS = quick ? 20 : 200;

/**
 * Microseconds of CPU per call (this process's user and system time, steadier than the clock on
 * a shared machine): the median of ROUNDS rounds of about BUDGET_MS each. Every call gets its
 * own copy of the text, as every chat message is a new string: the engine remembers a regular
 * expression's last answer for the very same string, which would flatter a loop over one.
 */
function perCall(text: string, run: (text: string) => unknown): number {
  const copies = Array.from({ length: 512 }, () => text.split("").join(""));
  let calls = 0;
  const started = performance.now();
  while (performance.now() - started < 20) run(copies[calls++ % copies.length] ?? text);
  const perMs = calls / Math.max(performance.now() - started, 0.001);
  const batch = Math.max(1, Math.round(perMs * BUDGET_MS));
  const rounds: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const start = process.cpuUsage();
    for (let i = 0; i < batch; i++) run(copies[i % copies.length] ?? text);
    const used = process.cpuUsage(start);
    rounds.push((used.user + used.system) / batch);
  }
  rounds.sort((a, b) => a - b);
  return rounds[Math.floor(rounds.length / 2)] ?? 0;
}

const repeatTo = (unit: string, length: number) =>
  unit.repeat(Math.ceil(length / unit.length)).slice(0, length);

const texts: Array<[string, string]> = [
  ["short, English", "haha same, how was your day?"],
  ["short, Chinese", "哈哈我也是！今天好累喔"],
  ["short, with a time", "see you at 9 then"],
  [
    "long, English (312 chars)",
    "I walked along the shore this morning and the tide was further out than I have ever seen it. " +
      "There were crabs everywhere, and a little girl kept naming each one after her classmates. " +
      "Later it rained, so I sat in the café by the pier and read half a novel. What about you, " +
      "what does your week look like?",
  ],
  [
    "long, Chinese (150 chars)",
    repeatTo(
      "今天早上沿著海邊散步，潮水退得比平常還遠，沙灘上到處都是小螃蟹。後來下起雨，我就躲進碼頭旁的咖啡店，看了半本小說。你呢？這個禮拜過得怎麼樣？",
      150,
    ),
  ],
  ["1,000 chars, plain prose", repeatTo("the sea was calm and the sky was wide, ", 1000)],
  ["1,000 chars, dotted labels", repeatTo("a.", 1000)],
  ["1,000 chars, spaced digits", repeatTo("1 ", 1000)],
  ["1,000 chars, digit words", repeatTo("one two ", 1000)],
  ["1,000 chars, Chinese digits", repeatTo("一二三 ", 1000)],
  ["1,000 chars, messenger names", repeatTo("line: ", 1000)],
  ["1,000 chars, spelled letters", repeatTo("a ", 1000)],
  ["1,000 chars, dot words", repeatTo("a dot ", 1000)],
  ["1,000 chars, mixed disguises", repeatTo("0️⃣ nine 點 exаmple (at) 賴: 加我 ", 1000)],
];

console.log(`contact details per call (µs of CPU, median of ${ROUNDS} rounds)\n`);
console.log("| text | pre-check says | hasContactDetails | without pre-check |");
console.log("| --- | --- | ---: | ---: |");
for (const [name, text] of texts) {
  const skipped = cannotHoldContactDetails(text);
  const withCheck = perCall(text, hasContactDetails);
  const without = perCall(text, (copy) => contactDetailsInFull(copy));
  console.log(
    `| ${name} | ${skipped ? "plain" : "normalise"} | ${withCheck.toFixed(2)} | ${without.toFixed(2)} |`,
  );
}

console.log("\nrepeat keys and fingerprints per call (µs of CPU)\n");
console.log(
  "| text | repeatKey | textFingerprint | sameText on fingerprints | nearDuplicate on keys |",
);
console.log("| --- | ---: | ---: | ---: | ---: |");
for (const [name, text] of [texts[0], texts[3], texts[5]] as Array<[string, string]>) {
  // Compared with itself with one character changed, the case that needs the whole comparison.
  const changed = `${text.slice(0, 10)}x${text.slice(11)}`;
  const a = textFingerprint(text);
  const b = textFingerprint(changed);
  const keyA = repeatKey(text);
  const keyB = repeatKey(changed);
  console.log(
    `| ${name} | ${perCall(text, repeatKey).toFixed(2)} | ${perCall(text, textFingerprint).toFixed(2)} | ${perCall(text, () => sameText(a, b)).toFixed(2)} | ${perCall(text, () => nearDuplicate(keyA, keyB)).toFixed(2)} |`,
  );
}

// Which list of top-level domains: ordinary texts read as links, and contact forms still found
// as links, by linkify-it with each list (on the normalised text, as the detector reads it).
const withAbused = linkFinder();
const fullList = linkFinder(allTlds, false);
const ordinaryTexts = ordinary.texts.map((entry) => contactText(entry.text));
const linkForms = forms.texts
  .filter((entry) => entry.kind === "link")
  .map((entry) => contactText(entry.text));
console.log("\ntop-level domains for fuzzy links\n");
console.log("| list | ordinary texts read as links | link forms found |");
console.log("| --- | ---: | ---: |");
for (const [name, finder] of [
  ["linkify-it's list + abused gTLDs", withAbused],
  [`full tlds list (${allTlds.length})`, fullList],
] as const) {
  const wrong = ordinaryTexts.filter((text) => linksAndAddresses(text, finder).link);
  const found = linkForms.filter((text) => linksAndAddresses(text, finder).link).length;
  console.log(
    `| ${name} | ${wrong.length} of ${ordinaryTexts.length} | ${found} of ${linkForms.length} |`,
  );
  for (const text of wrong) console.log(`|   ${text} | | |`);
}
