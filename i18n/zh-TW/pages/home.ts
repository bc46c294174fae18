import type { Translation } from "../../i18n-types";

export const home: Translation["home"] = {
  title: "TODO",
};
