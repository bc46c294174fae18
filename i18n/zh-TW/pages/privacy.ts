import type { Translation } from "../../i18n-types";

export const privacy: Translation["privacy"] = {
  title: "TODO",
};
