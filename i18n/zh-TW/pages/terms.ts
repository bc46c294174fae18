import type { Translation } from "../../i18n-types";

export const terms: Translation["terms"] = {
  title: "TODO",
};
