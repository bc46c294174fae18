import type { Redis } from "ioredis";

/**
 * A MONITOR connection to a Redis node. A command of someone else's that reaches it in the same
 * read as MONITOR's own answer, before ioredis has put it in monitor mode, fails the call
 * ("Command queue state error"): asked again, five times at most. Later ones are reported as
 * errors the same way; they are ignored (that line is not counted).
 */
export async function monitorOf(node: Redis): Promise<Redis> {
  for (let attempt = 1; ; attempt++) {
    try {
      const monitor = await node.monitor();
      monitor.on("error", () => {});
      return monitor;
    } catch (error) {
      if (attempt === 5) throw error;
    }
  }
}
