// Proof of work: what the send buttons say while the browser is still solving its challenge,
// and the two errors the server may answer (shown only after one silent retry).
export const pow = {
  working: "Checking this is a person…",
  workingLabel: "Your browser is doing a moment of work that keeps scripts out",
  required: "Your browser needs a moment before this can be sent. Please try again.",
  invalid: "That check ran out or was already used. Please try again.",
};
