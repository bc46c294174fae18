import { createTRPCClient, createWSClient, wsLink } from "@trpc/client";
import type { AppRouter } from "../../src/server/trpc/routers/index.ts";
import type { CookieJar } from "./server.ts";

export interface AccountSocket {
  /** Every procedure, called over the one socket. */
  api: ReturnType<typeof createTRPCClient<AppRouter>>;
  close(): void;
}

/**
 * A tRPC WebSocket client opened with the cookies a jar holds now (visitor and session), as a
 * signed-in page opens its socket: what the jar learns later never reaches it.
 */
export function accountSocket(url: string, jar: CookieJar, address: string): AccountSocket {
  const headers = { Origin: url, Cookie: jar.header(), "X-Forwarded-For": address };
  class HeaderedWebSocket extends WebSocket {
    constructor(socketUrl: string | URL, protocols?: string | string[]) {
      // Bun's WebSocket takes headers, which browsers set themselves.
      super(socketUrl, { headers, protocols } as unknown as string[]);
    }
  }
  const client = createWSClient({
    url: `${url.replace(/^http/, "ws")}/trpc`,
    retryDelayMs: () => 100,
    WebSocket: HeaderedWebSocket as unknown as typeof WebSocket,
  });
  return {
    api: createTRPCClient<AppRouter>({ links: [wsLink({ client })] }),
    close: () => client.close(),
  };
}
