// Strings of the privacy page.
export const privacy = {
  title: "TODO",
};
