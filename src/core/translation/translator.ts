import type { TargetLanguage } from "../../common/translation.ts";

/** Turns text into one of the menu's languages; each provider says which it can serve. */
export interface Translator {
  /** Recorded with each cached result, so the operator can tell who produced it. */
  readonly name: string;
  /** Only what this translator can serve now; the UI offers nothing else. */
  targets(): readonly TargetLanguage[];
  /** What it can serve for this text (by default, all its targets). */
  targetsFor?(text: string): readonly TargetLanguage[];
  translate(text: string, target: TargetLanguage): Promise<string>;
  /** For translators that learn their targets over the network: settles once targets() is known. */
  ready?(): Promise<void>;
  /** For translators that delegate: the result and the name of the provider that made it. */
  translateWithProvider?(text: string, target: TargetLanguage): Promise<Translation>;
}

export interface Translation {
  text: string;
  provider: string;
}

/**
 * "unsupported": this translator cannot do this (language, or text it cannot read); another
 * may. "unavailable": it could, but failed now (network, quota, timeout); try later.
 */
export type TranslationErrorKind = "unsupported" | "unavailable";

export class TranslationError extends Error {
  constructor(
    readonly kind: TranslationErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "TranslationError";
  }
}

/** The fetch the HTTP translators need; narrower than `typeof fetch`, so tests can pass their own. */
export type Fetch = (input: string, init?: RequestInit) => Promise<Response>;

/** Calls a translator and names the provider whose text came back. */
export async function translateWithProvider(
  translator: Translator,
  text: string,
  target: TargetLanguage,
): Promise<Translation> {
  if (translator.translateWithProvider) return translator.translateWithProvider(text, target);
  return { text: await translator.translate(text, target), provider: translator.name };
}
