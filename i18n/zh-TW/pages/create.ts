import type { Translation } from "../../i18n-types";

export const create: Translation["create"] = {
  title: "寫一封信",
  subtitle: "把心事裝進瓶子，讓潮水帶給遠方的陌生人。",
};
