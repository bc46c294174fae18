import { useCallback, useEffect, useRef, useState } from "react";
import type { ChatEvent } from "../../../common/chat.ts";
import { appCodeOf } from "../../lib/errors.ts";
import { trpc } from "../../lib/trpc.ts";
import { banEndOf } from "./useChatBan.ts";

/** How long "Find Someone" waits for the chat stream before it gives up with a connection error. */
const CONNECT_TIMEOUT_MS = 10_000;
/** A stream the server ended with an error (not a dropped socket) is opened again after this. */
const RESUBSCRIBE_MS = 5000;

/**
 * The visitor's chat stream, open while `enabled`: its events go to `onEvent`, a refusal for a
 * ban to `onBanned`, and any other refusal to `onRefused`, which answers true when it settles
 * the matter (the chat is resting) so the stream is not tried again. The socket's own
 * reconnects resume it without loss (tracked event ids).
 */
export function useChatStream(
  enabled: boolean,
  onEvent: (event: ChatEvent) => void,
  onBanned: (until: number) => void,
  onRefused: (error: unknown) => boolean,
) {
  const client = trpc.useUtils().client;
  const [reconnecting, setReconnecting] = useState(false);
  const [run, setRun] = useState(0);
  const connected = useRef(false);
  const waiters = useRef(new Set<(ok: boolean) => void>());
  // The latest handlers, so the stream is opened once and never re-subscribed for a new closure.
  const handlers = useRef({ onEvent, onBanned, onRefused });
  handlers.current = { onEvent, onBanned, onRefused };

  // biome-ignore lint/correctness/useExhaustiveDependencies: `run` reopens the stream.
  useEffect(() => {
    if (!enabled) return;
    const settle = (ok: boolean) => {
      connected.current = ok;
      for (const wake of waiters.current) wake(ok);
      waiters.current.clear();
    };
    const up = () => {
      setReconnecting(false);
      settle(true);
    };
    let retry: ReturnType<typeof setTimeout> | undefined;
    const subscription = client.chat.events.subscribe(undefined, {
      onStarted: up,
      onData(tracked) {
        up();
        // Several events may come in one frame, in order.
        for (const event of tracked.data) handlers.current.onEvent(event);
      },
      onConnectionStateChange(state) {
        if (state.state === "connecting" && state.error) {
          setReconnecting(true);
          settle(false);
        }
      },
      onError(error) {
        settle(false);
        if (appCodeOf(error) === "CHAT_BANNED") {
          handlers.current.onBanned(banEndOf(error));
          return;
        }
        if (handlers.current.onRefused(error)) return;
        setReconnecting(true);
        retry = setTimeout(() => setRun((n) => n + 1), RESUBSCRIBE_MS);
      },
    });
    return () => {
      clearTimeout(retry);
      settle(false);
      subscription.unsubscribe();
    };
  }, [client, enabled, run]);

  /** Resolves true once the stream is open, false after the connect timeout. */
  const waitForConnection = useCallback((): Promise<boolean> => {
    if (connected.current) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(timer);
        waiters.current.delete(done);
        resolve(ok);
      };
      const timer = setTimeout(() => done(false), CONNECT_TIMEOUT_MS);
      waiters.current.add(done);
    });
  }, []);

  return { reconnecting, waitForConnection };
}
