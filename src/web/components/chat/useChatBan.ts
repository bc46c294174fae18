import { useCallback, useEffect, useState } from "react";
import { toast } from "sonner";
import { useI18n } from "../../lib/i18n.tsx";
import { deviceStorage } from "../../lib/storage.ts";
import { trpc } from "../../lib/trpc.ts";
import { timeLeftText } from "./time-left.ts";

/** Where a ban's end is kept between visits: local storage, as a timestamp. */
export const BAN_STORAGE_KEY = "chat-ban-until";
/** A ban's end when the server did not say how long: 24 hours from now. */
const DEFAULT_BAN_S = 24 * 60 * 60;
/** The "about N hours" on screen is brought up to date this often. */
const BAN_TICK_MS = 60_000;
/** Timers cannot wait longer than this at once (about 24.8 days). */
export const LONGEST_TIMER_MS = 2 ** 31 - 1;

/** Where a mute's end is kept, so a reloaded page still says it (the server tells it once). */
export const MUTE_STORAGE_KEY = "chat-muted-until";

/** A time kept under `key` while it is still ahead; one that has passed is cleared, not shown. */
export function readStored(key: string, now = Date.now()): number | null {
  const kept = deviceStorage(key);
  const until = Number(kept.read());
  if (Number.isFinite(until) && until > now) return until;
  kept.remove();
  return null;
}

/** Keeps a time under `key` (null forgets it); the server stays the source of truth. */
export function store(key: string, until: number | null): void {
  if (until === null) deviceStorage(key).remove();
  else deviceStorage(key).write(String(until));
}

export const readStoredBan = (now = Date.now()) => readStored(BAN_STORAGE_KEY, now);
const storeBan = (until: number | null) => store(BAN_STORAGE_KEY, until);

/** When the server says a ban ends: now plus its retry-after seconds (a day if it did not say). */
export function banEndOf(error: unknown): number {
  const data = (error as { data?: { retryAfter?: unknown } } | null)?.data;
  const seconds = typeof data?.retryAfter === "number" ? data.retryAfter : DEFAULT_BAN_S;
  return Date.now() + seconds * 1000;
}

/**
 * The visitor's chat ban: drawn first from storage, then as the server says (the source of
 * truth), lifting itself when it ends. `apply` records one and, if asked, says so in a toast.
 */
export function useChatBan() {
  const { LL } = useI18n();
  const [bannedUntil, setBannedUntil] = useState<number | null>(() => readStoredBan());
  const me = trpc.chat.me.useQuery(undefined, { staleTime: 0 });

  const apply = useCallback(
    (until: number | null, announce = false) => {
      storeBan(until);
      setBannedUntil(until);
      if (until !== null && announce) {
        toast.error(LL.randomChat.restrictedTitle(), {
          description: LL.randomChat.restrictedToast({ time: timeLeftText(LL, until) }),
        });
      }
    },
    [LL],
  );

  useEffect(() => {
    if (!me.data) return;
    const until = me.data.bannedUntil;
    apply(until !== null && until > Date.now() ? until : null);
  }, [me.data, apply]);

  const [now, setNow] = useState(() => Date.now());
  const { refetch } = me;
  useEffect(() => {
    if (bannedUntil === null) return;
    setNow(Date.now());
    const tick = setInterval(() => setNow(Date.now()), BAN_TICK_MS);
    const wait = Math.min(Math.max(0, bannedUntil - Date.now()) + 500, LONGEST_TIMER_MS);
    const lift = setTimeout(() => {
      if (readStoredBan() === null || Date.now() >= bannedUntil) {
        apply(null);
        void refetch();
      }
    }, wait);
    return () => {
      clearInterval(tick);
      clearTimeout(lift);
    };
  }, [bannedUntil, apply, refetch]);

  return {
    /** The ban's end while it lasts, else null. */
    bannedUntil: bannedUntil !== null && bannedUntil > now ? bannedUntil : null,
    /** Banned as far as this page knows (the stream stays closed meanwhile). */
    isBanned: bannedUntil !== null,
    now,
    /** The visitor's own country and age answer, shown before a chat. */
    me: me.data,
    /** The server could not be asked (the start call will say what it needs). */
    meFailed: me.isError,
    apply,
  };
}
