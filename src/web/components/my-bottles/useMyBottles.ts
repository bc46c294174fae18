import { useEffect } from "react";
import type { MyBottle } from "../../../common/bottles.ts";
import { appCodeOf } from "../../lib/errors.ts";
import { markFindsSeen } from "../../lib/finds-seen.ts";
import { trpc } from "../../lib/trpc.ts";

/**
 * The writer's bottles, newest first, a page of 20 at a time, and sinking one. Seeing the list
 * counts as seeing its finds: the "your bottle was found" notice starts again from its time.
 */
export function useMyBottles() {
  const utils = trpc.useUtils();
  const list = trpc.bottles.mine.useInfiniteQuery(
    {},
    { getNextPageParam: (page) => page.nextCursor, staleTime: 0 },
  );
  const pages = list.data?.pages ?? [];
  const bottles: MyBottle[] = pages.flatMap((page) => page.bottles);

  useEffect(() => {
    const answered = list.data?.pages ?? [];
    if (!answered.some((page) => page.bottles.length > 0)) return;
    markFindsSeen(Math.max(...answered.map((page) => page.asOf)));
  }, [list.data]);

  const sink = trpc.bottles.sink.useMutation({
    // The bottle shows what the server answered, in every page it is in.
    onSuccess: ({ state }, { bottleId }) => {
      utils.bottles.mine.setInfiniteData({}, (data) =>
        data
          ? {
              ...data,
              pages: data.pages.map((page) => ({
                ...page,
                bottles: page.bottles.map((b) => (b.id === bottleId ? { ...b, state } : b)),
              })),
            }
          : data,
      );
    },
    // Not this visitor's (signed out elsewhere) or gone: the list is asked for again.
    onError: (error) => {
      if (appCodeOf(error) === "NOT_FOUND") void utils.bottles.mine.invalidate();
    },
  });

  return { list, bottles, sink };
}
