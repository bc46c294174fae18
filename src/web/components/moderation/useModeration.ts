import type { inferRouterOutputs } from "@trpc/server";
import { useState } from "react";
import { toast } from "sonner";
import type { AppRouter } from "../../../server/trpc/routers/index.ts";
import { errorMessage } from "../../lib/errors.ts";
import type { Feature } from "../../lib/feature-paths.ts";
import { useI18n } from "../../lib/i18n.tsx";
import { trpc } from "../../lib/trpc.ts";
import { subjectName } from "./subject-name.ts";

type Queue = inferRouterOutputs<AppRouter>["moderation"]["queue"];
/** One group of the queue: a bottle or a chat visitor, with its open reports. */
export type QueueGroup = Queue["groups"][number];
/** One recorded operator action. */
export type ModerationAction = Queue["actions"][number];
/** What an operator can do to a subject of the queue. */
export type Verb = "hide" | "unhide" | "ban" | "unban" | "dismiss";

/** New reports come in while the page is open: the queue is asked for again this often. */
const QUEUE_REFRESH_MS = 30_000;

/**
 * The moderation queue with its actions and the off switches. Every action is answered with
 * the queue as the server has it afterwards (and the recent actions list with it).
 */
export function useModeration() {
  const { LL } = useI18n();
  const t = LL.moderation;
  const utils = trpc.useUtils();
  const queue = trpc.moderation.queue.useQuery(undefined, { refetchInterval: QUEUE_REFRESH_MS });
  const done = { onSettled: () => utils.moderation.queue.invalidate() };
  const verbs = {
    hide: trpc.moderation.hide.useMutation(done),
    unhide: trpc.moderation.unhide.useMutation(done),
    ban: trpc.moderation.ban.useMutation(done),
    unban: trpc.moderation.unban.useMutation(done),
    dismiss: trpc.moderation.dismiss.useMutation(done),
  } as const;
  const setFeature = trpc.moderation.setFeature.useMutation({
    onSuccess: ({ features }) => {
      // The operator's own pages follow the switch at once.
      utils.site.features.setData(undefined, features);
    },
    onSettled: () => utils.moderation.queue.invalidate(),
  });

  const failed = (error: unknown) =>
    toast.error(t.failedTitle(), { description: errorMessage(LL, error) });

  // The action just done, for its row in the recent actions to take the focus once the list
  // has it (the button pressed has usually left with its card): the subject, and the newest
  // action recorded before it.
  const [focusAction, setFocusAction] = useState<{ subject: string; after: number }>();

  /** Runs one action on one subject ("bottle:12", "visitor:…"), saying how it went. */
  const act = (verb: Verb, subject: string) => {
    const after = Math.max(0, ...(queue.data?.actions ?? []).map((a) => a.id));
    verbs[verb].mutate(
      { subject },
      {
        onSuccess: () => {
          setFocusAction({ subject, after });
          toast.success(t.done[verb]({ subject: subjectName(LL, subject) }));
        },
        onError: failed,
      },
    );
  };

  const toggle = (feature: Feature, enabled: boolean) =>
    setFeature.mutate(
      { feature, enabled },
      {
        onSuccess: () =>
          toast.success(enabled ? t.switches.turnedOn() : t.switches.turnedOff(), {
            description: t.switches.names[feature](),
          }),
        onError: failed,
      },
    );

  /** The subject an action is on its way for, so its buttons wait. */
  const busySubject = Object.values(verbs).find((m) => m.isPending)?.variables?.subject ?? null;

  return {
    queue,
    act,
    focusAction,
    focusDone: () => setFocusAction(undefined),
    busySubject,
    toggle,
    switching: setFeature.isPending ? setFeature.variables?.feature : undefined,
  };
}

export type Moderation = ReturnType<typeof useModeration>;
