import { useCallback, useRef, useState } from "react";
import { toast } from "sonner";
import { errorMessage } from "../../lib/errors.ts";
import { useI18n } from "../../lib/i18n.tsx";
import { trpc } from "../../lib/trpc.ts";

/** Where the writer stands at the bottles' age gate when a throw asks. */
export type Standing = "confirmed" | "refused" | "unanswered";

/** A throw stopped at the age gate: under 13, or the question closed without an answer. */
export class AgeGateStop extends Error {
  constructor(readonly standing: "refused" | "unanswered") {
    super(`age gate: ${standing}`);
  }
}

/**
 * The bottles' age gate (13 or older, the privacy page's age): asked once, the first time a
 * bottle is thrown, in a dialog; the server keeps the answer ("under 13" refuses bottles for
 * 30 days). `ensure` resolves once the writer may throw, or throws AgeGateStop.
 */
export function useBottleAge() {
  const { LL } = useI18n();
  const utils = trpc.useUtils();
  const age = trpc.bottles.age.useQuery(undefined, { staleTime: Number.POSITIVE_INFINITY });
  const confirm = trpc.bottles.confirmAge.useMutation();
  const [asking, setAsking] = useState(false);
  const waiting = useRef<((standing: Standing) => void) | null>(null);

  const settle = useCallback((standing: Standing) => {
    setAsking(false);
    waiting.current?.(standing);
    waiting.current = null;
  }, []);

  const ensure = async (): Promise<void> => {
    let standing: Standing = age.data?.age ?? (await utils.bottles.age.fetch()).age;
    if (standing === "unanswered") {
      standing = await new Promise<Standing>((resolve) => {
        waiting.current = resolve;
        setAsking(true);
      });
    }
    if (standing !== "confirmed") throw new AgeGateStop(standing);
  };

  /** The dialog's answer; null when it was closed without one. */
  const answer = (atLeast13: boolean | null) => {
    if (atLeast13 === null) return settle("unanswered");
    confirm.mutate(
      { atLeast13 },
      {
        onSuccess: (answered) => {
          utils.bottles.age.setData(undefined, answered);
          settle(answered.age);
        },
        onError: (error) => {
          toast.error(LL.create.age.failedTitle(), { description: errorMessage(LL, error) });
          settle("unanswered");
        },
      },
    );
  };

  /** The server refused a throw for age (answered elsewhere): the page shows it. */
  const refusedNow = () => utils.bottles.age.setData(undefined, { age: "refused" });

  // The refusal sits above the form, on a phone far above the button just pressed: once it is
  // drawn, it takes the focus, which brings it into view (and to a screen reader).
  const refusal = useRef<HTMLDivElement>(null);
  const showRefusal = () => requestAnimationFrame(() => refusal.current?.focus());

  return {
    refused: age.data?.age === "refused",
    asking,
    busy: confirm.isPending,
    ensure,
    answer,
    refusedNow,
    refusal,
    showRefusal,
  };
}

export type BottleAge = ReturnType<typeof useBottleAge>;
