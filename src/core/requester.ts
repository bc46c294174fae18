import type { Country } from "../common/country.ts";

/**
 * Who is asking, built once per request or WebSocket from its cookies and address, never from
 * input: the visitor cookie, the keyed hash of the address (the raw address is never kept), the
 * account when signed in, and the country (looked up only when a rule needs it).
 */
export interface Requester {
  visitorId: string;
  ipKey: string;
  userId: string | null;
  country(): Country;
}

/** The two keys every per-visitor rule counts by: the cookie and the address. */
export type VisitorKeys = Pick<Requester, "visitorId" | "ipKey">;
