// Strings of the public-bottles page.
export const publicBottles = {
  title: "Public Bottles",
  subtitle: "Messages their writers chose to share with everyone.",
};
