import { z } from "zod";

/** The eight languages of the translate menu (spec §9), as BCP 47 tags. */
export const targetLanguages = ["en", "zh-TW", "zh-CN", "ja", "ko", "es", "fr", "de"] as const;
export type TargetLanguage = (typeof targetLanguages)[number];

/** A bottle holds far less than this; the bound keeps paid providers' bills small. */
export const TRANSLATION_LIMITS = { text: 1000 } as const;

export const translateInput = z.object({
  text: z.string().trim().min(1).max(TRANSLATION_LIMITS.text),
  target: z.enum(targetLanguages),
});
export type TranslateInput = z.infer<typeof translateInput>;
