import type { MailboxListener, Numbered } from "./mailbox.ts";

/**
 * A visitor's events as an async generator of batches: everything `listen` handed over since the
 * consumer last asked, in order (one batch, so one frame, however many waited), until `signal`
 * aborts or the consumer stops.
 */
export async function* eventStream(
  listen: (onEvent: MailboxListener) => () => void,
  signal?: AbortSignal,
): AsyncGenerator<Numbered[], void, undefined> {
  let queue: Numbered[] = [];
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
      if (queue.length > 0) {
        const batch = queue;
        queue = [];
        yield batch;
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
