import type { Translation } from "../../i18n-types";

export const publicBottles: Translation["publicBottles"] = {
  title: "公開瓶子",
  subtitle: "寫信人選擇與所有人分享的訊息。",
};
