import { POOL_HELPERS } from "./helpers.ts";
import { match, widen } from "./match.ts";
import { ban, block, mute, remember } from "./moderation.ts";
import { POOL_INPUTS } from "./prelude.ts";
import { attach, counts, detach, leave, status } from "./presence.ts";
import { lost, restore } from "./recovery.ts";
import { start } from "./start.ts";
import { orphan, sweep } from "./upkeep.ts";

export { BEAT, LEASE_RELEASE, LEASE_TAKE } from "./instances.ts";
export { POOL_ARGS } from "./prelude.ts";
export { RESTORE_ARGS } from "./recovery.ts";

/**
 * The pool's steps on Redis (keys in redis/keys.ts), each one Lua script, so it is one atomic
 * step for every instance: pairing can never hand one visitor to two chats. Each is the pool's
 * prelude (its inputs named, then the shared helpers), then its own body, which opens by naming
 * its own ARGV. Scripts answer JSON (cjson), read by the parts in src/core/chat/redis/.
 */
export const POOL_SCRIPTS = {
  start,
  match,
  widen,
  status,
  attach,
  detach,
  leave,
  block,
  remember,
  mute,
  ban,
  sweep,
  orphan,
  restore,
  lost,
  counts,
} as const;

export type PoolScript = keyof typeof POOL_SCRIPTS;

/** Each pool script as Redis runs it: the prelude whole, then its body. */
export function poolScriptSource(name: PoolScript): string {
  return [POOL_INPUTS, POOL_HELPERS, POOL_SCRIPTS[name]].join("\n");
}
