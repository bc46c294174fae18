import type { MailboxListener, Numbered } from "./mailbox.ts";

/**
 * A visitor's events as an async generator: what `listen` hands over, in order and each made
 * into what the consumer wants by `as`, until `signal` aborts or the consumer stops. Events that
 * come while the consumer is busy wait in a queue.
 */
export async function* eventStream<T>(
  listen: (onEvent: MailboxListener) => () => void,
  as: (numbered: Numbered) => T,
  signal?: AbortSignal,
): AsyncGenerator<T, void, undefined> {
  const queue: Numbered[] = [];
  let wake: (() => void) | undefined;
  const stop = listen((numbered) => {
    queue.push(numbered);
    wake?.();
  });
  // A consumer that stops while the generator waits would otherwise wait for the next event.
  const onAbort = () => wake?.();
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    while (!signal?.aborted) {
      const next = queue.shift();
      if (next) {
        yield as(next);
        continue;
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = undefined;
    }
  } finally {
    signal?.removeEventListener("abort", onAbort);
    stop();
  }
}
