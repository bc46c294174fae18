/** The eight languages of the translate menu, as BCP 47 tags. */
export const targetLanguages = ["en", "zh-TW", "zh-CN", "ja", "ko", "es", "fr", "de"] as const;
export type TargetLanguage = (typeof targetLanguages)[number];
