import { z } from "./zod.ts";

export const USERNAME_PATTERN = /^[A-Za-z0-9_.-]+$/;
export const AUTH_LIMITS = {
  usernameMin: 3,
  usernameMax: 32,
  passwordMin: 8,
  passwordMax: 256,
} as const;

export const usernameSchema = z
  .string()
  .trim()
  .min(AUTH_LIMITS.usernameMin)
  .max(AUTH_LIMITS.usernameMax)
  .regex(USERNAME_PATTERN);

// Passwords are taken as typed: spaces at either end are part of them.
export const passwordSchema = z.string().min(AUTH_LIMITS.passwordMin).max(AUTH_LIMITS.passwordMax);

/** A password may not be the username, in any case. */
function notTheUsername(value: { username: string; password: string }, ctx: z.RefinementCtx) {
  if (value.password.trim().toLowerCase() === value.username.trim().toLowerCase()) {
    ctx.addIssue({ code: "custom", path: ["password"], params: { kind: "password_is_username" } });
  }
}

export const signUpInput = z
  .object({ username: usernameSchema, password: passwordSchema })
  .superRefine(notTheUsername);

// Signing in checks only bounds: the stored rules may have been different when the account was made.
export const signInInput = z.object({
  username: z.string().trim().min(1).max(AUTH_LIMITS.usernameMax),
  password: z.string().min(1).max(AUTH_LIMITS.passwordMax),
});

export const changePasswordInput = z.object({
  currentPassword: z.string().min(1).max(AUTH_LIMITS.passwordMax),
  newPassword: passwordSchema,
});

export const deleteAccountInput = z.object({
  password: z.string().min(1).max(AUTH_LIMITS.passwordMax),
});

export type SignUpInput = z.infer<typeof signUpInput>;
export type SignInInput = z.infer<typeof signInInput>;

/** What the web knows of the signed-in visitor. */
export interface AccountUser {
  id: string;
  username: string;
}

/** Only same-site paths are honoured as a place to return to after signing in. */
export function safeRedirect(value: unknown): string | undefined {
  if (typeof value !== "string" || !value.startsWith("/")) return undefined;
  if (value.startsWith("//") || value.startsWith("/\\") || value.includes("\\")) return undefined;
  for (const char of value) if (char.charCodeAt(0) < 0x20) return undefined;
  return value;
}
