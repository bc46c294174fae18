import { z } from "zod";

/** Bounds chosen for the contact form; the spec leaves them open. */
export const CONTACT_LIMITS = { name: 100, email: 254, message: 5000 } as const;

export const contactInput = z.object({
  name: z.string().trim().min(1).max(CONTACT_LIMITS.name),
  email: z.string().trim().min(1).max(CONTACT_LIMITS.email).pipe(z.email()),
  message: z.string().trim().min(1).max(CONTACT_LIMITS.message),
});
export type ContactInput = z.infer<typeof contactInput>;
