import { useCallback } from "react";
import { appCodeOf } from "./errors.ts";
import { type Feature, withResting } from "./feature-paths.ts";
import { siteConfig } from "./site.ts";
import { trpc } from "./trpc.ts";

/** How long the answer is trusted; the server itself picks a switch up within seconds. */
const FEATURES_STALE_MS = 30_000;
/** A resting page asks again this often, so it gives way by itself when the part is back. */
const RESTING_RECHECK_MS = 30_000;

/** When this page was loaded: the switches embedded in it are as fresh as that. */
const loadedAt = Date.now();

/**
 * Whether `feature` is switched on. The page arrives with the switches as the server had them,
 * so neither the resting page nor the real one is drawn first only to give way to the other.
 */
export function useFeature(feature: Feature): boolean {
  const states = trpc.site.features.useQuery(undefined, {
    staleTime: FEATURES_STALE_MS,
    initialData: siteConfig().features,
    initialDataUpdatedAt: loadedAt,
    refetchInterval: (query) =>
      query.state.data?.[feature] === false ? RESTING_RECHECK_MS : false,
  });
  return states.data?.[feature] ?? true;
}

/** Marks a part as resting, as the server said (a refused call, or the chat's own stream). */
export function useSetResting(): (feature: Feature) => void {
  const utils = trpc.useUtils();
  return useCallback(
    (feature: Feature) => {
      utils.site.features.setData(undefined, (states) => withResting(states, feature));
    },
    [utils],
  );
}

/**
 * For calls made outside the query caches (the chat's own client calls): a FEATURE_RESTING
 * answer marks the part as resting, and the answer is true.
 */
export function useMarkResting(): (error: unknown, feature: Feature) => boolean {
  const setResting = useSetResting();
  return useCallback(
    (error: unknown, feature: Feature) => {
      if (appCodeOf(error) !== "FEATURE_RESTING") return false;
      setResting(feature);
      return true;
    },
    [setResting],
  );
}
