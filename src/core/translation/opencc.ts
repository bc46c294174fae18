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

/**
 * Offline conversion between Traditional (Taiwan) and Simplified Chinese, with OpenCC's phrase
 * tables both ways (軟體 ⇄ 软件, 滑鼠 ⇄ 鼠标), not just character by character.
 */
export class OpenccTranslator implements Translator {
  readonly name = "opencc";
  // Building a converter loads its dictionaries; done on first use, once.
  #converters = new Map<TargetLanguage, ConverterFunction>();

  targets(): readonly TargetLanguage[] {
    return ["zh-TW", "zh-CN"];
  }

  async translate(text: string, target: TargetLanguage): Promise<string> {
    if (target !== "zh-TW" && target !== "zh-CN") {
      throw new TranslationError("unsupported", `opencc cannot translate to ${target}`);
    }
    if (!isMainlyChinese(text)) {
      throw new TranslationError("unsupported", "opencc converts only Chinese text");
    }
    let convert = this.#converters.get(target);
    if (!convert) {
      // cn→twp is OpenCC's s2twp; twp→cn is tw2sp, its exact reverse.
      convert =
        target === "zh-TW"
          ? Converter({ from: "cn", to: "twp" })
          : Converter({ from: "twp", to: "cn" });
      this.#converters.set(target, convert);
    }
    return convert(text);
  }
}
