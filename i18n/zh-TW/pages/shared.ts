import type { Translation } from "../../i18n-types";

export const translation: Translation["translation"] = {
  translate: "翻譯",
  translating: "翻譯中…",
  menu: "翻譯成",
  onDevice: "在這台裝置上翻譯",
  translatedTo: "已翻譯成{language}",
  translatedOnDevice: "已在這台裝置上翻譯成{language}",
  original: "目前顯示原文",
  showOriginal: "顯示原文",
  showTranslation: "顯示翻譯",
  translatedTitle: "訊息已翻譯",
  translatedBody: "已翻譯成{language}",
  failedTitle: "翻譯失敗",
  failedBody: "無法翻譯這則訊息，請稍後再試。",
  unsupported: "這則訊息無法在這裡翻譯成{language}。",
  languages: {
    en: "英文",
    zhTW: "繁體中文",
    zhCN: "簡體中文",
    ja: "日文",
    ko: "韓文",
    es: "西班牙文",
    fr: "法文",
    de: "德文",
  },
};

export const report: Translation["report"] = {
  report: "檢舉",
  reason: "檢舉原因",
  choose: "請選擇一個原因。",
  submit: "送出檢舉",
  submitting: "送出中…",
  submittedTitle: "檢舉已送出",
  submittedBody: "感謝你協助維護社群的安全。",
  failedTitle: "檢舉送出失敗",
  failedBody: "請稍後再試。",
  childSafetyHint: "可能有兒童面臨危險或遭到性化。我們會立即處理。",
};

export const characters: Translation["characters"] = {
  count: "{count} / {limit}",
  countSpoken: "已使用 {count} 個字元，上限 {limit} 個",
};
