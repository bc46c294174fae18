// Strings of the public-bottles page (the bottle card's strings live in discover.card).
export const publicBottles = {
  title: "Public Bottles",
  subtitle: "Messages their writers chose to share with everyone.",
  loading: "Loading public bottles…",
  error: "Unable to load messages at this time.",
  tryAgain: "Try Again",
  empty: "No public bottles available yet. Be the first to share one!",
  create: "Write a Message",
  returnHome: "Return to Home",
  ocean: "Public bottles in the ocean",
  hint: "Open a bottle to read the message inside.",
  bottle: "Bottle from {country:string}, {count:number} like{{s}}",
};
