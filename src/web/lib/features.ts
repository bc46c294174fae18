import { useCallback } from "react";
import { appCodeOf } from "./errors.ts";
import { type Feature, withResting } from "./feature-paths.ts";
import { trpc } from "./trpc.ts";

/** How long the answer is trusted; the server itself picks a switch up within seconds. */
const FEATURES_STALE_MS = 30_000;
/** A resting page asks again this often, so it gives way by itself when the part is back. */
const RESTING_RECHECK_MS = 30_000;

/** Whether `feature` is switched on (true until the server has answered otherwise). */
export function useFeature(feature: Feature): boolean {
  const states = trpc.site.features.useQuery(undefined, {
    staleTime: FEATURES_STALE_MS,
    refetchInterval: (query) =>
      query.state.data?.[feature] === false ? RESTING_RECHECK_MS : false,
  });
  return states.data?.[feature] ?? true;
}

/**
 * For calls made outside the query caches (the chat's own client calls): a FEATURE_RESTING
 * answer marks the part as resting, and the answer is true.
 */
export function useMarkResting(): (error: unknown, feature: Feature) => boolean {
  const utils = trpc.useUtils();
  return useCallback(
    (error: unknown, feature: Feature) => {
      if (appCodeOf(error) !== "FEATURE_RESTING") return false;
      utils.site.features.setData(undefined, (states) => withResting(states, feature));
      return true;
    },
    [utils],
  );
}
