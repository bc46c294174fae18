import { type TargetLanguage, targetLanguages } from "../../common/translation.ts";
import { ownScriptTargets } from "./opencc.ts";
import {
  type Translation,
  TranslationError,
  type Translator,
  translateWithProvider,
} from "./translator.ts";

/** Several translators as one: each target goes to the first that can serve it. */
export class CompositeTranslator implements Translator {
  readonly name: string;

  constructor(readonly translators: readonly Translator[]) {
    this.name = translators.map((t) => t.name).join("+");
  }

  targets(): readonly TargetLanguage[] {
    const offered = new Set(this.translators.flatMap((t) => t.targets()));
    return targetLanguages.filter((l) => offered.has(l));
  }

  /**
   * What any of them can serve for this text, never the text's own Chinese script (which would
   * hand the text back, or worse, with 台 swapped for 臺).
   */
  targetsFor(text: string): readonly TargetLanguage[] {
    const own = ownScriptTargets(text);
    const offered = new Set(this.translators.flatMap((t) => t.targetsFor?.(text) ?? t.targets()));
    return targetLanguages.filter((l) => offered.has(l) && !own.includes(l));
  }

  async ready(): Promise<void> {
    await Promise.all(this.translators.map((t) => t.ready?.()));
  }

  async translate(text: string, target: TargetLanguage): Promise<string> {
    return (await this.translateWithProvider(text, target)).text;
  }

  async translateWithProvider(text: string, target: TargetLanguage): Promise<Translation> {
    if (ownScriptTargets(text).includes(target)) {
      throw new TranslationError("unsupported", `the text is already in ${target}'s script`);
    }
    const failures: TranslationError[] = [];
    for (const translator of this.translators) {
      // Waited for in turn, so a slow discovery delays only requests that reach it.
      await translator.ready?.();
      const offered = translator.targetsFor?.(text) ?? translator.targets();
      if (!offered.includes(target)) continue;
      try {
        return await translateWithProvider(translator, text, target);
      } catch (error) {
        failures.push(
          error instanceof TranslationError
            ? error
            : new TranslationError("unavailable", `${translator.name} failed`, { cause: error }),
        );
      }
    }
    if (failures.length === 0) {
      throw new TranslationError("unsupported", `no translator offers ${target}`);
    }
    // One that could but failed means "try later"; only a unanimous refusal means "cannot".
    const kind = failures.every((f) => f.kind === "unsupported") ? "unsupported" : "unavailable";
    throw new TranslationError(kind, failures.map((f) => f.message).join("; "), {
      cause: failures,
    });
  }
}
