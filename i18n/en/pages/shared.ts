// Strings more than one page uses: the translate menu and the report dialog (bottle card and
// random chat), and the character count under a text field (create, contact, chat).
export const translation = {
  translate: "Translate",
  translating: "Translating…",
  menu: "Translate into",
  onDevice: "On this device",
  translatedTo: "Translated to {language:string}",
  translatedOnDevice: "Translated to {language:string} on this device",
  original: "Showing the original message",
  showOriginal: "Show original",
  showTranslation: "Show translation",
  translatedTitle: "Message translated",
  translatedBody: "Translated to {language:string}",
  failedTitle: "Translation failed",
  failedBody: "Could not translate the message. Please try again later.",
  unsupported: "This message cannot be translated into {language:string} here.",
  languages: {
    en: "English",
    zhTW: "Traditional Chinese",
    zhCN: "Simplified Chinese",
    ja: "Japanese",
    ko: "Korean",
    es: "Spanish",
    fr: "French",
    de: "German",
  },
};

export const report = {
  report: "Report",
  reason: "Reason",
  choose: "Please choose a reason.",
  submit: "Submit report",
  submitting: "Submitting…",
  submittedTitle: "Report submitted",
  submittedBody: "Thank you for helping keep our community safe.",
  failedTitle: "Failed to submit report",
  failedBody: "Please try again later.",
  childSafetyHint: "A child may be at risk or being sexualised. We act on it at once.",
};

export const characters = {
  count: "{count:number} / {limit:number}",
  countSpoken: "{count:number} of {limit:number} characters used",
};
