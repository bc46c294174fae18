import type { Translation } from "../../i18n-types";

export const discover: Translation["discover"] = {
  title: "尋找瓶子",
  subtitle: "看看潮水把什麼沖上了岸。",
};
