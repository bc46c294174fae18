import { z } from "zod";

/** The contact form's bounds: 100 characters of name, 254 of e-mail address, 5,000 of message. */
export const CONTACT_LIMITS = { name: 100, email: 254, message: 5000 } as const;

export const contactInput = z.object({
  name: z.string().trim().min(1).max(CONTACT_LIMITS.name),
  email: z.string().trim().min(1).max(CONTACT_LIMITS.email).pipe(z.email()),
  message: z.string().trim().min(1).max(CONTACT_LIMITS.message),
});
export type ContactInput = z.infer<typeof contactInput>;
