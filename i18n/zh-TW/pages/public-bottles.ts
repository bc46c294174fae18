import type { Translation } from "../../i18n-types";

export const publicBottles: Translation["publicBottles"] = {
  title: "公開瓶子",
  subtitle: "寫信人選擇與所有人分享的訊息。",
  loading: "正在載入公開瓶子…",
  error: "目前無法載入訊息。",
  tryAgain: "再試一次",
  empty: "目前還沒有公開的瓶子。成為第一個分享的人吧！",
  create: "寫一封信",
  returnHome: "返回首頁",
  ocean: "海上的公開瓶子",
  hint: "點一下瓶子，讀讀裡面的訊息。",
  bottle: "來自{country}的瓶子，{count} 個讚",
};
