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
  me: publicProcedure.query(({ ctx }) => ({ user: ctx.user, isOperator: ctx.isOperator })),

  signUp: publicProcedure.input(signUpInput).mutation(async ({ ctx, input }) => {
    const signedUp = await signUp(ctx.db, ctx, ctx.requester, input, ctx.now());
    ctx.setSessionCookie(signedUp.token, signedUp.session.expiresAt);
    ctx.setDeviceCookie(signedUp.deviceToken);
    return { user: signedUp.user };
  }),

  signIn: publicProcedure.input(signInInput).mutation(async ({ ctx, input }) => {
    const signedIn = await signIn(ctx.db, ctx, ctx.requester, input, ctx.deviceToken, ctx.now());
    if (ctx.session) await deleteSession(ctx.db, ctx.session.id);
    ctx.setSessionCookie(signedIn.token, signedIn.session.expiresAt);
    ctx.setDeviceCookie(signedIn.deviceToken);
    return { user: signedIn.user };
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
    await changePassword(
      ctx.db,
      ctx,
      ctx.requester,
      ctx.user,
      ctx.session.id,
      input,
      ctx.deviceToken,
    );
    return { ok: true as const };
  }),

  deleteAccount: protectedProcedure.input(deleteAccountInput).mutation(async ({ ctx, input }) => {
    await deleteAccount(ctx.db, ctx, ctx.requester, ctx.user, input.password, ctx.deviceToken);
    ctx.setSessionCookie(null);
    return { ok: true as const };
  }),
});
