import { systemTime } from "../../src/core/clock.ts";

/**
 * Waits for something the test cannot be told of directly (a row another part writes, a count
 * a server reports) by asking again until it holds, and fails naming it when it never does.
 * It answers as soon as the condition holds: no fixed delay decides the outcome, so a slow
 * machine makes the test slower, never wrong.
 */
export function eventually<T>(
  probe: () => T | Promise<T>,
  what: string,
  timeoutMs = 10_000,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    let last: unknown;
    const attempt = async () => {
      try {
        const value = await probe();
        if (value) return resolve(value as NonNullable<T>);
        last = value;
      } catch (error) {
        last = error;
      }
      if (Date.now() >= deadline) {
        return reject(new Error(`${what}: still not so after ${timeoutMs} ms (last: ${last})`));
      }
      // Asked again on a later turn of the event loop, so what it waits for can happen.
      systemTime.setTimeout(() => void attempt(), 10);
    };
    void attempt();
  });
}
