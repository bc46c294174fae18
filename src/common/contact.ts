import { withoutControls } from "./controls.ts";
import { z } from "./zod.ts";

/** The contact form's bounds: 100 characters of name, 254 of e-mail address, 5,000 of message. */
export const CONTACT_LIMITS = { name: 100, email: 254, message: 5000 } as const;

/** Terminal and bidi controls have no use in a contact message: they go before it is kept. */
const text = (lines: boolean) => z.string().overwrite((value) => withoutControls(value, { lines }));

export const contactInput = z.object({
  name: text(false).trim().min(1).max(CONTACT_LIMITS.name),
  email: text(false).trim().min(1).max(CONTACT_LIMITS.email).pipe(z.email()),
  message: text(true).trim().min(1).max(CONTACT_LIMITS.message),
});
export type ContactInput = z.infer<typeof contactInput>;
