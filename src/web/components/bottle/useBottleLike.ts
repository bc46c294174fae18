import { useRef, useState } from "react";
import { toast } from "sonner";
import type { BottleCard } from "../../../common/bottles.ts";
import { appCodeOf, errorMessage } from "../../lib/errors.ts";
import { useI18n } from "../../lib/i18n.tsx";
import { keptSignedOut } from "../../lib/returning-bottle.ts";
import { trpc } from "../../lib/trpc.ts";

export interface LikeState {
  liked: boolean;
  count: number;
}

/**
 * The heart of one bottle: shown at once on a click, then set to what the server answers.
 * `askToSignIn` is called when the visitor has no account (or the server says so). `account`:
 * both false while the session is not known yet.
 */
export function useBottleLike(
  bottle: BottleCard,
  account: { signedIn: boolean; signedOut: boolean },
  askToSignIn: (reason: string) => void,
) {
  const { signedOut } = account;
  const { LL } = useI18n();
  const t = LL.discover.card;
  const utils = trpc.useUtils();
  const toggle = trpc.bottles.toggleLike.useMutation();
  const busy = useRef(false);
  /** Where the visitor's last click left the heart, while calls are under way. */
  const wanted = useRef<boolean | undefined>(undefined);
  const [like, setLike] = useState<LikeState>({ liked: bottle.isLiked, count: bottle.likeCount });
  /** What is shown, for clicks that come before the next render. */
  const shown = useRef(like);
  const show = (next: LikeState) => {
    shown.current = next;
    setLike(next);
  };

  // New data in the props (a refetch after signing in or out) wins over what was shown. Only a
  // change of the props counts: our own answer never resets the heart to the props it replaced.
  const fromProps = `${bottle.id}:${bottle.isLiked}:${bottle.likeCount}`;
  const [seenProps, setSeenProps] = useState(fromProps);
  if (seenProps !== fromProps) {
    setSeenProps(fromProps);
    shown.current = { liked: bottle.isLiked, count: bottle.likeCount };
    setLike(shown.current);
  }

  // A bottle its reader saw signed out (here, or kept while they went to sign in) shows the
  // heart as a signed-out reader sees it: once signed in (in this tab or another), the
  // account's own like is asked for (it may have liked it before). A click comes first: after
  // one, the toggle's answer is the truth.
  const clicked = useRef(false);
  const [seenSignedOut, setSeenSignedOut] = useState<number | undefined>(undefined);
  if (signedOut && seenSignedOut !== bottle.id) setSeenSignedOut(bottle.id);
  const own = trpc.bottles.likeOf.useQuery(
    { bottleId: bottle.id },
    {
      enabled: account.signedIn && (seenSignedOut === bottle.id || keptSignedOut(bottle.id)),
      staleTime: Number.POSITIVE_INFINITY,
      retry: false,
    },
  );
  const [seenOwn, setSeenOwn] = useState(own.data);
  if (own.data !== seenOwn) {
    setSeenOwn(own.data);
    if (own.data && !clicked.current) {
      shown.current = own.data;
      setLike(own.data);
    }
  }

  /** Keeps the public list's copy in step, so reopening the bottle shows the new count. */
  const remember = (next: LikeState) => {
    utils.bottles.publicList.setData(undefined, (old) =>
      old
        ? {
            bottles: old.bottles.map((b) =>
              b.id === bottle.id ? { ...b, isLiked: next.liked, likeCount: next.count } : b,
            ),
          }
        : old,
    );
  };

  const onLike = async () => {
    if (!(Number.isInteger(bottle.id) && bottle.id > 0)) {
      toast.error(t.cannotLike());
      return;
    }
    if (signedOut) {
      askToSignIn(t.likeSignIn());
      return;
    }
    clicked.current = true;
    const before = shown.current;
    show({ liked: !before.liked, count: Math.max(0, before.count + (before.liked ? -1 : 1)) });
    wanted.current = !before.liked;
    // A click while a call is on its way is not lost: that call ends where the last click left it.
    if (busy.current) return;
    busy.current = true;
    /** What the server last said (before the first call: what was shown). */
    let confirmed = before;
    try {
      // The server toggles: once more for each change of mind that came meanwhile (bounded).
      for (let call = 1; call <= 3; call++) {
        const result = await toggle.mutateAsync({ bottleId: bottle.id });
        confirmed = { liked: result.liked, count: result.count };
        if (result.liked === wanted.current) break;
      }
      show(confirmed);
      remember(confirmed);
    } catch (error) {
      show(confirmed);
      if (confirmed !== before) remember(confirmed);
      const code = appCodeOf(error);
      if (code === "UNAUTHORIZED") {
        askToSignIn(t.likeSignIn());
      } else {
        toast.error(t.likeFailedTitle(), {
          description: code === "RATE_LIMITED" ? errorMessage(LL, error) : t.likeFailedBody(),
        });
      }
    } finally {
      busy.current = false;
      wanted.current = undefined;
    }
  };

  return { like, onLike };
}
