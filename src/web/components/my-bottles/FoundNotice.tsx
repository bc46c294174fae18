import { useLocation } from "@tanstack/react-router";
import { useCallback, useEffect, useRef, useState } from "react";
import { toast } from "sonner";
import { localizedPath, splitPrefix } from "../../../common/locales.ts";
import { markFindsSeen, readFindsSeen } from "../../lib/finds-seen.ts";
import { useI18n } from "../../lib/i18n.tsx";
import { trpc } from "../../lib/trpc.ts";
import { ToastLink } from "../ToastLink.tsx";

/** One notice, however often the shell mounts (React's strict mode mounts it twice). */
const NOTICE_ID = "bottle-found";

/**
 * The returning writer's notice: once per visit (a page load), if their bottles were found
 * since the time this browser last saw, one toast says how often, linking to My bottles. A
 * browser that never threw a bottle keeps no time and asks nothing.
 */
export function FoundNotice() {
  const { LL, prefix } = useI18n();
  const { pathname } = useLocation();
  // Read once: the visit's starting point, not what this visit marks seen later.
  const [since] = useState(readFindsSeen);
  const finds = trpc.bottles.findsSince.useQuery(
    { since: since ?? 0 },
    { enabled: since !== null, staleTime: Number.POSITIVE_INFINITY, retry: false },
  );
  const where = useRef(pathname);
  where.current = pathname;
  const noticed = useRef(false);

  useEffect(() => {
    const answer = finds.data;
    if (!answer || noticed.current) return;
    noticed.current = true;
    markFindsSeen(answer.asOf);
    // On My bottles the counts are on the page already.
    if (answer.finds === 0 || splitPrefix(where.current).rest === "/my-bottles") return;
    const title = answer.bottles > 1 ? LL.myBottles.notice.several : LL.myBottles.notice.one;
    toast.success(title({ count: answer.finds }), {
      id: NOTICE_ID,
      // Followed, it leaves rather than lie over My bottles' Sink buttons.
      description: (
        <ToastLink to={localizedPath(prefix, "my-bottles")} toastId={NOTICE_ID}>
          {LL.myBottles.notice.link()}
        </ToastLink>
      ),
      duration: 10_000,
    });
  }, [finds.data, LL, prefix]);
  return null;
}

/**
 * After a throw: starts this browser's finds clock at the server's time, if it has none yet,
 * so the next visit can say whether the bottle was found.
 */
export function useStartFindsClock(): () => void {
  const utils = trpc.useUtils();
  return useCallback(() => {
    if (readFindsSeen() !== null) return;
    utils.bottles.findsSince.fetch({ since: null }).then(
      ({ asOf }) => markFindsSeen(asOf),
      // Unanswered: the clock starts with the next throw or a look at My bottles.
      () => {},
    );
  }, [utils]);
}
