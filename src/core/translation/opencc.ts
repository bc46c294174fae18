import { Converter, type ConverterFunction } from "opencc-js";
import type { TargetLanguage } from "../../common/translation.ts";
import { TranslationError, type Translator } from "./translator.ts";

const HAN = /\p{Script=Han}/gu;
// Kana and Hangul count per character, like Han: a Japanese or Korean text is not Chinese.
const KANA_HANGUL = /[\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu;
// Other scripts count per word ("我用iPhone拍照" is Chinese; "I love 台灣" is not).
const OTHER_WORD =
  /[\p{L}--[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]]+/gv;

function count(text: string, pattern: RegExp): number {
  return text.match(pattern)?.length ?? 0;
}

/**
 * Whether the text is written mainly in Chinese characters. OpenCC only swaps character forms,
 * so on anything else its output would be the input passed off as a translation.
 */
export function isMainlyChinese(text: string): boolean {
  const han = count(text, HAN);
  return han > 0 && han > count(text, KANA_HANGUL) + count(text, OTHER_WORD);
}

// Building a converter loads its dictionaries: each is built on first use, once.
function lazily(from: string, to: string): ConverterFunction {
  let convert: ConverterFunction | undefined;
  return (text) => {
    convert ??= Converter({ from, to });
    return convert(text);
  };
}
// cn→twp is OpenCC's s2twp; twp→cn is tw2sp, its exact reverse.
const toTraditional = lazily("cn", "twp");
const toSimplified = lazily("twp", "cn");
// Hong Kong's and Taiwan's own forms back to OpenCC's standard Traditional.
const fromHongKong = lazily("hk", "t");
const fromTaiwan = lazily("tw", "t");

/**
 * The script a Chinese text is written in: "traditional" when it holds characters only
 * Traditional writes (這, 軟), "simplified" when it holds characters only Simplified writes
 * (这, 软), "either" when every character is written the same in both (你好, 台北).
 */
export type ChineseScript = "traditional" | "simplified" | "either";

/** Which Chinese script `text` is in; undefined when it is not mainly Chinese. */
export function chineseScriptOf(text: string): ChineseScript | undefined {
  if (!isMainlyChinese(text)) return undefined;
  if (toSimplified(text) !== text) return "traditional";
  if (toTraditional(text) === text) return "either";
  // Some characters the Simplified-to-Traditional table changes are everyday Traditional too,
  // as Taiwan and Hong Kong write them (台北, 温暖): alone they say nothing of the script.
  const simplifiedOnly = (han: string) =>
    toTraditional(han) !== han && fromHongKong(han) === han && fromTaiwan(han) === han;
  return (text.match(HAN) ?? []).some(simplifiedOnly) ? "simplified" : "either";
}

/** The one Chinese target a text can be converted into, if any: never its own script. */
export function scriptTargetsFor(text: string): readonly TargetLanguage[] {
  const script = chineseScriptOf(text);
  if (script === "traditional") return ["zh-CN"];
  if (script === "simplified") return ["zh-TW"];
  return [];
}

/** The Chinese targets that would be the text's own script: not a translation at all. */
export function ownScriptTargets(text: string): readonly TargetLanguage[] {
  const script = chineseScriptOf(text);
  if (script === "traditional") return ["zh-TW"];
  if (script === "simplified") return ["zh-CN"];
  if (script === "either") return ["zh-TW", "zh-CN"];
  return [];
}

/**
 * Offline conversion between Traditional (Taiwan) and Simplified Chinese, with OpenCC's phrase
 * tables both ways (軟體 ⇄ 软件, 滑鼠 ⇄ 鼠标), not just character by character. It converts a
 * text only into the other script: Traditional text "into Traditional" would come back with
 * Taiwan's everyday 台 swapped for 臺, passed off as a translation.
 */
export class OpenccTranslator implements Translator {
  readonly name = "opencc";

  targets(): readonly TargetLanguage[] {
    return ["zh-TW", "zh-CN"];
  }

  targetsFor(text: string): readonly TargetLanguage[] {
    return scriptTargetsFor(text);
  }

  async translate(text: string, target: TargetLanguage): Promise<string> {
    if (target !== "zh-TW" && target !== "zh-CN") {
      throw new TranslationError("unsupported", `opencc cannot translate to ${target}`);
    }
    if (!isMainlyChinese(text)) {
      throw new TranslationError("unsupported", "opencc converts only Chinese text");
    }
    if (!scriptTargetsFor(text).includes(target)) {
      throw new TranslationError("unsupported", `the text is already in ${target}'s script`);
    }
    return target === "zh-TW" ? toTraditional(text) : toSimplified(text);
  }
}
