/**
 * Asks again until `probe` answers something truthy, and answers it; fails naming `what` when
 * it never does within `timeoutMs`. For what a test cannot be told of directly (a count another
 * process reports, a state after a restart): it answers as soon as the condition holds, so a
 * slow machine makes a test slower, never wrong.
 */
export async function waitUntil<T>(
  probe: () => T | Promise<T>,
  what: string,
  timeoutMs = 10_000,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value as NonNullable<T>;
      last = value;
    } catch (error) {
      last = error;
    }
    if (Date.now() >= deadline) {
      throw new Error(`${what}: still not so after ${timeoutMs} ms (last: ${String(last)})`);
    }
    await new Promise((next) => setTimeout(next, 20));
  }
}
