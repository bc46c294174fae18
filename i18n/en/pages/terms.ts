// Strings of the terms page.
export const terms = {
  title: "TODO",
};
