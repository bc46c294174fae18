import {
  changePasswordInput,
  deleteAccountInput,
  signInInput,
  signUpInput,
} from "../../../common/auth.ts";
import { changePassword, deleteAccount, signIn, signUp } from "../../../core/auth/accounts.ts";
import { deleteSession, deleteUserSessions } from "../../../core/auth/sessions.ts";
import { protectedProcedure, publicProcedure, router } from "../init.ts";

export const authRouter = router({
  me: publicProcedure.query(({ ctx }) => ({ user: ctx.user })),

  signUp: publicProcedure.input(signUpInput).mutation(async ({ ctx, input }) => {
    const { user, token, session } = await signUp(ctx.db, ctx.limiter, ctx, input, ctx.now());
    ctx.setSessionCookie(token, session.expiresAt);
    return { user };
  }),

  signIn: publicProcedure.input(signInInput).mutation(async ({ ctx, input }) => {
    if (ctx.session) await deleteSession(ctx.db, ctx.session.id);
    const { user, token, session } = await signIn(ctx.db, ctx.limiter, ctx, input, ctx.now());
    ctx.setSessionCookie(token, session.expiresAt);
    return { user };
  }),

  signOut: publicProcedure.mutation(async ({ ctx }) => {
    if (ctx.session) await deleteSession(ctx.db, ctx.session.id);
    ctx.setSessionCookie(null);
    return { ok: true as const };
  }),

  signOutEverywhere: protectedProcedure.mutation(async ({ ctx }) => {
    await deleteUserSessions(ctx.db, ctx.user.id);
    ctx.setSessionCookie(null);
    return { ok: true as const };
  }),

  changePassword: protectedProcedure.input(changePasswordInput).mutation(async ({ ctx, input }) => {
    await changePassword(ctx.db, ctx.limiter, ctx, ctx.user, ctx.session.id, input);
    return { ok: true as const };
  }),

  deleteAccount: protectedProcedure.input(deleteAccountInput).mutation(async ({ ctx, input }) => {
    await deleteAccount(ctx.db, ctx.limiter, ctx, ctx.user, input.password);
    ctx.setSessionCookie(null);
    return { ok: true as const };
  }),
});
