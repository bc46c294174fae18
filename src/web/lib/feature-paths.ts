/** The parts of the site the operator can switch off (the server's `site.features`). */
export type Feature = "chat" | "bottles" | "publicBottles";
export type FeatureStates = Record<Feature, boolean>;

/** Which part a call belongs to, by its tRPC path: the calls the server refuses while it rests. */
export function featureOfPath(path: string): Feature | undefined {
  if (path.startsWith("chat.")) return "chat";
  if (path === "bottles.publicList") return "publicBottles";
  if (path.startsWith("bottles.") && path !== "bottles.age" && path !== "bottles.confirmAge") {
    return "bottles";
  }
  return undefined;
}

/** The states with one part resting (every part counts as on until the server said). */
export function withResting(states: FeatureStates | undefined, feature: Feature): FeatureStates {
  return { chat: true, bottles: true, publicBottles: true, ...states, [feature]: false };
}
