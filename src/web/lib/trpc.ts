import { MutationCache, QueryCache, QueryClient, type QueryKey } from "@tanstack/react-query";
import { createWSClient, httpBatchLink, splitLink, wsLink } from "@trpc/client";
import { createTRPCReact, getQueryKey } from "@trpc/react-query";
import { CHAT_TIMINGS, SERVER_RESTARTING } from "../../common/chat-timings.ts";
import type { AppRouter } from "../../server/trpc/routers/index.ts";
import { appCodeOf } from "./errors.ts";
import { type FeatureStates, featureOfPath, withResting } from "./feature-paths.ts";

export const trpc = createTRPCReact<AppRouter>();

/**
 * A call refused with FEATURE_RESTING marks its part of the site as resting, so its page shows
 * the resting page (tRPC's cache keys start with the call's path, as ["bottles", "throw"]).
 */
function noteResting(error: unknown, key: QueryKey | undefined): void {
  const path = key?.[0];
  if (appCodeOf(error) !== "FEATURE_RESTING" || !Array.isArray(path)) return;
  const feature = featureOfPath(path.join("."));
  if (!feature) return;
  queryClient.setQueryData<FeatureStates>(
    getQueryKey(trpc.site.features, undefined, "query"),
    (states) => withResting(states, feature),
  );
}

/**
 * A call refused as signed out while the page thought otherwise (the session ended on another
 * device): who is signed in is asked again, so the header and the pages say so too.
 */
function noteSignedOut(error: unknown): void {
  if (appCodeOf(error) !== "UNAUTHORIZED") return;
  void queryClient.invalidateQueries({ queryKey: getQueryKey(trpc.auth.me, undefined, "query") });
}

export const queryClient: QueryClient = new QueryClient({
  queryCache: new QueryCache({
    onError: (error, query) => {
      noteResting(error, query.queryKey);
      noteSignedOut(error);
    },
  }),
  mutationCache: new MutationCache({
    onError: (error, _input, _context, mutation) => {
      noteResting(error, mutation.options.mutationKey);
      noteSignedOut(error);
    },
  }),
  defaultOptions: { queries: { retry: 1, refetchOnWindowFocus: false } },
});

const delays = CHAT_TIMINGS.reconnectDelaysMs;

/**
 * How long to wait before reconnecting: at once (spread over half a second, so a stopping
 * instance's visitors do not all land in the same instant) after the server said it is
 * restarting, otherwise the usual backoff.
 */
export function reconnectDelay(attempt: number, restarting: boolean): number {
  if (restarting && attempt === 0) return Math.floor(Math.random() * 500);
  return delays[Math.min(attempt, delays.length - 1)] ?? 10_000;
}

/**
 * The chat socket's options: opened only while needed, kept alive with pings, and reconnected
 * with backoff, or at once when the server closed it as restarting.
 */
export function chatSocketOptions(url: () => string) {
  let restarting = false;
  return {
    url,
    lazy: { enabled: true, closeMs: 10_000 },
    onOpen: () => {
      restarting = false;
    },
    onClose: (cause?: { code?: number }) => {
      restarting = cause?.code === SERVER_RESTARTING;
    },
    retryDelayMs: (attempt: number) => reconnectDelay(attempt, restarting),
    keepAlive: { enabled: true, intervalMs: 15_000, pongTimeoutMs: 5_000 },
  };
}

/**
 * What the chat page asks first (where the visitor stands: country, ban, age answer) comes with
 * the page's other first questions over HTTP, without waiting for the socket to open: nothing
 * is offered before it is known. The safety gate's answer goes the same way, so it is recorded
 * (or refused with a message) where the socket cannot connect, behind a proxy that drops
 * WebSockets; the start then says that it cannot connect.
 */
const chatOverHttp = new Set(["chat.me", "chat.online", "chat.confirmAge"]);

/**
 * Subscriptions and chat calls go over one WebSocket (opened only when the chat needs it);
 * everything else over HTTP.
 */
export function createTrpcClient(currentLocale: () => string) {
  const socket = createWSClient(
    chatSocketOptions(
      () => `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/trpc`,
    ),
  );
  return trpc.createClient({
    links: [
      splitLink({
        condition: (op) =>
          op.type === "subscription" || (op.path.startsWith("chat.") && !chatOverHttp.has(op.path)),
        true: wsLink({ client: socket }),
        false: httpBatchLink({
          url: "/trpc",
          headers: () => ({ "x-tidings-locale": currentLocale() }),
        }),
      }),
    ],
  });
}
