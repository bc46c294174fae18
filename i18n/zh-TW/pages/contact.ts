import type { Translation } from "../../i18n-types";

export const contact: Translation["contact"] = {
  title: "TODO",
};
