// Strings of the home page.
export const home = {
  title: "TODO",
};
