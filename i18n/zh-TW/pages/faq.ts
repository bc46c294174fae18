import type { Translation } from "../../i18n-types";

export const faq: Translation["faq"] = {
  title: "TODO",
};
