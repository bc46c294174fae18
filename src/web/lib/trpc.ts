import { QueryClient } from "@tanstack/react-query";
import { createWSClient, httpBatchLink, splitLink, wsLink } from "@trpc/client";
import { createTRPCReact } from "@trpc/react-query";
import { CHAT_TIMINGS } from "../../common/chat-timings.ts";
import type { AppRouter } from "../../server/trpc/routers/index.ts";

export const trpc = createTRPCReact<AppRouter>();

export const queryClient = new QueryClient({
  defaultOptions: { queries: { retry: 1, refetchOnWindowFocus: false } },
});

const delays = CHAT_TIMINGS.reconnectDelaysMs;

/**
 * Subscriptions and chat calls go over one WebSocket (opened only when the chat needs it);
 * everything else over HTTP.
 */
export function createTrpcClient(currentLocale: () => string) {
  const socket = createWSClient({
    url: () => `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/trpc`,
    lazy: { enabled: true, closeMs: 10_000 },
    retryDelayMs: (attempt) => delays[Math.min(attempt, delays.length - 1)] ?? 10_000,
    keepAlive: { enabled: true, intervalMs: 15_000, pongTimeoutMs: 5_000 },
  });
  return trpc.createClient({
    links: [
      splitLink({
        condition: (op) => op.type === "subscription" || op.path.startsWith("chat."),
        true: wsLink({ client: socket }),
        false: httpBatchLink({
          url: "/trpc",
          headers: () => ({ "x-tidings-locale": currentLocale() }),
        }),
      }),
    ],
  });
}
