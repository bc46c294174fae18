// Strings of the discover page.
export const discover = {
  title: "Find a Bottle",
  subtitle: "See what the tide has washed ashore.",
};
