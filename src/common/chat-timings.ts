// Apart from chat.ts so the first page load, which only needs these numbers, carries no zod.
/** How long the chat screen shows each passing state. */
export const CHAT_TIMINGS = {
  matchOverlayMs: 3000,
  /** A dropped socket that returns within this resumes the same chat. */
  resumeGraceMs: 15_000,
  /** The client's reconnect delays: 1, 2, 5, then every 10 s. */
  reconnectDelaysMs: [1000, 2000, 5000, 10_000],
  /** Two who just chatted are paired again within this long only as a last resort... */
  partedKeptApartMs: 10 * 60 * 1000,
  /** ...when both have waited this long with nobody else to meet. */
  meetAgainAfterMs: 20_000,
  /** Ended chats keep their messages this long, for reports sent after a partner left. */
  endedChatKeptMs: 10 * 60 * 1000,
} as const;

/**
 * The close code a stopping instance closes its sockets with (WebSocket's "Service Restart"):
 * the web reconnects at once, to another instance when there is one.
 */
export const SERVER_RESTARTING = 1012;
