/** An instance's copy of the mutes in force: the one copy of keyed holds (see holds/copy.ts). */
export { HoldCopy as MuteCopy } from "../holds/copy.ts";
