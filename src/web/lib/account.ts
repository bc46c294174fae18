import { useNavigate } from "@tanstack/react-router";
import { useCallback, useEffect, useState } from "react";
import { toast } from "sonner";
import type { AccountUser } from "../../common/auth.ts";
import { localizedPath } from "../../common/locales.ts";
import { appCodeOf, errorMessage } from "./errors.ts";
import { useI18n } from "./i18n.tsx";
import { trpc } from "./trpc.ts";

/** How long the answer to "who is signed in" is trusted before it is asked again. */
const ACCOUNT_STALE_MS = 60_000;

/**
 * The signed-in visitor, or null; `pending` until the first answer arrives. `isOperator` says
 * whether they run the site (the moderation page is linked for them only).
 */
export function useAccount(): { user: AccountUser | null; pending: boolean; isOperator: boolean } {
  // Asked again whenever the tab comes back into view: the session may have ended on another
  // device ("sign out everywhere") meanwhile, and the header should not show it a minute more.
  const me = trpc.auth.me.useQuery(undefined, {
    staleTime: ACCOUNT_STALE_MS,
    refetchOnWindowFocus: "always",
  });
  return {
    user: me.data?.user ?? null,
    pending: me.isPending,
    isOperator: me.data?.isOperator ?? false,
  };
}

/**
 * The tabs of one browser share its session cookie, and say so here when it changes. One
 * channel a tab, to say and to hear: a channel does not hear what it says itself.
 */
let accountChannel: BroadcastChannel | null | undefined;
function sharedAccountChannel(): BroadcastChannel | null {
  if (accountChannel === undefined) {
    accountChannel =
      typeof BroadcastChannel === "undefined" ? null : new BroadcastChannel("tidings:account");
  }
  return accountChannel;
}

/**
 * Records who is signed in now (after sign-in, sign-up, sign-out or deletion) and refetches
 * everything else, since answers such as "liked by me" depend on the session. The browser's
 * other tabs hear of it too.
 */
export function useSetAccountUser(): (user: AccountUser | null) => Promise<void> {
  const utils = trpc.useUtils();
  return useCallback(
    async (user: AccountUser | null) => {
      await utils.auth.me.cancel();
      // Whether the account is an operator comes with the refetch that follows.
      utils.auth.me.setData(undefined, { user, isOperator: false });
      sharedAccountChannel()?.postMessage("changed");
      await utils.invalidate();
    },
    [utils],
  );
}

/**
 * Signing in or out in another tab of this browser changes this one's session too: its header,
 * hearts and pages ask the server again at once, instead of showing the account that was.
 * The message carries nothing: who is signed in is asked of the server.
 */
export function useAccountFromOtherTabs(): void {
  const utils = trpc.useUtils();
  useEffect(() => {
    const channel = sharedAccountChannel();
    if (!channel) return;
    const changed = () => void utils.invalidate();
    channel.addEventListener("message", changed);
    return () => channel.removeEventListener("message", changed);
  }, [utils]);
}

/**
 * Ends the account's presence in this tab after sign-out, "sign out everywhere" or deletion:
 * goes to the home page of the current language, forgets the user and says what happened.
 */
export function useLeaveAccount(): (message: string) => Promise<void> {
  const { prefix } = useI18n();
  const navigate = useNavigate();
  const setAccountUser = useSetAccountUser();
  return useCallback(
    async (message: string) => {
      await navigate({ href: localizedPath(prefix, "") });
      await setAccountUser(null);
      toast.success(message);
    },
    [navigate, prefix, setAccountUser],
  );
}

/**
 * Signing out here, or on every device: busy until the visitor has left the account's pages;
 * a failure says why and keeps them signed in.
 */
export function useSignOut(everywhere = false): { busy: boolean; signOut: () => Promise<void> } {
  const { LL } = useI18n();
  const leave = useLeaveAccount();
  const setAccountUser = useSetAccountUser();
  const here = trpc.auth.signOut.useMutation();
  const all = trpc.auth.signOutEverywhere.useMutation();
  const request = everywhere ? all : here;
  const [leaving, setLeaving] = useState(false);
  const busy = request.isPending || leaving;
  const signOut = async () => {
    if (busy) return;
    try {
      await request.mutateAsync();
    } catch (error) {
      // A session already gone elsewhere: the page shows the visitor as signed out.
      const lost = appCodeOf(error) === "UNAUTHORIZED";
      toast.error(lost ? LL.errors.unauthorized() : errorMessage(LL, error));
      if (lost) await setAccountUser(null);
      return;
    }
    setLeaving(true);
    await leave(everywhere ? LL.auth.signedOutEverywhere() : LL.auth.signedOut());
  };
  return { busy, signOut };
}

/** The sign-in page: /auth, or /en/auth and /zh/auth. */
export function isSignInPath(pathname: string): boolean {
  return /^\/(?:(?:en|zh)\/)?auth\/?$/.test(pathname);
}

/**
 * Where the sign-in page returns to: the page the visitor is on. On /auth itself the current
 * return address is kept rather than pointing back at /auth.
 */
export function signInSearch(
  pathname: string,
  searchStr: string,
): { redirect: string } | Record<string, never> {
  if (isSignInPath(pathname)) {
    const kept = new URLSearchParams(searchStr).get("redirect");
    return kept ? { redirect: kept } : {};
  }
  return { redirect: `${pathname}${searchStr}` };
}
