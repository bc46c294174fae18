import { QueryClient } from "@tanstack/react-query";
import { httpBatchLink } from "@trpc/client";
import { createTRPCReact } from "@trpc/react-query";
import type { AppRouter } from "../../server/trpc/routers/index.ts";

export const trpc = createTRPCReact<AppRouter>();

export const queryClient = new QueryClient({
  defaultOptions: { queries: { retry: 1, refetchOnWindowFocus: false } },
});

export function createTrpcClient(currentLocale: () => string) {
  return trpc.createClient({
    links: [
      httpBatchLink({
        url: "/trpc",
        headers: () => ({ "x-tidings-locale": currentLocale() }),
      }),
    ],
  });
}
