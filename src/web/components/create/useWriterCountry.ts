import { useEffect, useState } from "react";
import { trpc } from "../../lib/trpc.ts";

/** An unknown country is looked up once more after this long (a first look-up may fail). */
const LOCATION_RETRY_MS = 2000;

/** Looks the writer's country up on load, and once more after a pause when it is unknown. */
export function useWriterCountry() {
  const geo = trpc.geo.me.useQuery(undefined, {
    retry: false,
    staleTime: Number.POSITIVE_INFINITY,
  });
  const [retried, setRetried] = useState(false);
  const unknown = geo.isError || (geo.isSuccess && !geo.data.code);
  const { refetch } = geo;
  useEffect(() => {
    if (!unknown || retried) return;
    const timer = setTimeout(() => {
      setRetried(true);
      void refetch();
    }, LOCATION_RETRY_MS);
    return () => clearTimeout(timer);
  }, [unknown, retried, refetch]);
  return { pending: geo.isPending, code: geo.data?.code ?? null };
}
