/** Why a text was refused; a safe verdict carries none. */
export type ModerationReason = "profanity" | "spam_links" | "spam_repetition" | "external";

export interface ModerationVerdict {
  safe: boolean;
  reasons: ModerationReason[];
}

/** Decides whether a bottle or chat message may be shown to others. */
export interface Moderator {
  check(text: string): Promise<ModerationVerdict>;
}
