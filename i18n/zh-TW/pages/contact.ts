import type { Translation } from "../../i18n-types";

export const contact: Translation["contact"] = {
  title: "聯絡我們",
  lead: "有問題、想法，或需要我們留意的事情嗎？歡迎留言給我們，每一則訊息我們都會仔細閱讀。",
  formLabel: "聯絡表單",
  allRequired: "所有欄位皆為必填。",
  name: "姓名",
  namePlaceholder: "你的名字",
  email: "電子郵件",
  emailPlaceholder: "you@example.com",
  message: "訊息",
  messagePlaceholder: "有什麼我們可以幫忙的嗎？",
  send: "送出訊息",
  sending: "送出中…",
  sentTitle: "訊息已送出",
  sentBody: "感謝你的來信，我們會盡快回覆你！",
  failedTitle: "訊息未能送出",
  alternative: "或來信至 {email} 聯絡我們",
};
