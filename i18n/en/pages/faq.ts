// Strings of the faq page.
export const faq = {
  title: "TODO",
};
