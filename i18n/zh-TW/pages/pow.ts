import type { Translation } from "../../i18n-types";

export const pow: Translation["pow"] = {
  working: "正在確認是真人…",
  workingLabel: "你的瀏覽器正在做一小段運算，用來擋下自動程式",
  required: "你的瀏覽器還需要一點時間才能送出，請再試一次。",
  invalid: "這次確認已逾時或已使用過，請再試一次。",
};
