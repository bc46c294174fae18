// Strings of the contact page.
export const contact = {
  title: "TODO",
};
