// Strings of the create page.
export const create = {
  title: "Write a Message",
  subtitle: "Put your thoughts in a bottle and let the tide carry them to a stranger.",
};
