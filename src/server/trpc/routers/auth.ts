import {
  changePasswordInput,
  deleteAccountInput,
  signInInput,
  signUpInput,
} from "../../../common/auth.ts";
import { changePassword, deleteAccount, signIn, signUp } from "../../../core/auth/accounts.ts";
import { deleteSession, deleteUserSessions, type Session } from "../../../core/auth/sessions.ts";
import type { Context } from "../context.ts";
import { powProcedure, protectedProcedure, publicProcedure, router } from "../init.ts";

/**
 * Ends one session; its account's open sockets, here and on every instance, read their rights
 * again. Each revocation below is told once its write is done, so a socket that reads again
 * finds it.
 */
async function endSession(ctx: Context, session: Session): Promise<void> {
  await deleteSession(ctx.db, session.id);
  ctx.revocations.revoke(session.userId);
}

export const authRouter = router({
  me: publicProcedure.query(({ ctx }) => ({ user: ctx.user, isOperator: ctx.isOperator })),

  signUp: powProcedure("signUp")
    .input(signUpInput)
    .mutation(async ({ ctx, input }) => {
      const signedUp = await signUp(ctx.db, ctx, ctx.requester, input, ctx.now());
      ctx.setSessionCookie(signedUp.token, signedUp.session.expiresAt);
      ctx.setDeviceCookie(signedUp.deviceToken);
      return { user: signedUp.user };
    }),

  signIn: powProcedure("signIn")
    .input(signInInput)
    .mutation(async ({ ctx, input }) => {
      const signedIn = await signIn(ctx.db, ctx, ctx.requester, input, ctx.deviceToken, ctx.now());
      if (ctx.session) await endSession(ctx, ctx.session);
      ctx.setSessionCookie(signedIn.token, signedIn.session.expiresAt);
      ctx.setDeviceCookie(signedIn.deviceToken);
      return { user: signedIn.user };
    }),

  signOut: publicProcedure.mutation(async ({ ctx }) => {
    if (ctx.session) await endSession(ctx, ctx.session);
    ctx.setSessionCookie(null);
    return { ok: true as const };
  }),

  signOutEverywhere: protectedProcedure.mutation(async ({ ctx }) => {
    await deleteUserSessions(ctx.db, ctx.user.id);
    ctx.revocations.revoke(ctx.user.id);
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
    ctx.revocations.revoke(ctx.user.id);
    return { ok: true as const };
  }),

  deleteAccount: protectedProcedure.input(deleteAccountInput).mutation(async ({ ctx, input }) => {
    await deleteAccount(ctx.db, ctx, ctx.requester, ctx.user, input.password, ctx.deviceToken);
    ctx.revocations.revoke(ctx.user.id);
    ctx.setSessionCookie(null);
    return { ok: true as const };
  }),
});
