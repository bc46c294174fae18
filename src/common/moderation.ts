/** The actor recorded for what an operator did with the `tidings` commands. */
export const COMMAND_LINE = "command line";
