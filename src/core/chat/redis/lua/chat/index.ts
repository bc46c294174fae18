import { finish, mute } from "./finish.ts";
import { open } from "./open.ts";
import { CHAT_HELPERS, CHAT_INPUTS } from "./prelude.ts";
import { alive, held, read } from "./read.ts";
import { send } from "./send.ts";

export { CHAT_ARGS } from "./prelude.ts";

/**
 * A chat's steps on Redis (see prelude.ts), each one Lua script on the chat's own slot: the
 * chat's prelude (its inputs named, then the shared helpers), then its own body, which opens by
 * naming its own ARGV.
 */
export const CHAT_SCRIPTS = { open, send, finish, mute, read, held, alive } as const;

export type ChatScript = keyof typeof CHAT_SCRIPTS;

/** Each chat script as Redis runs it: the prelude whole, then its body. */
export function chatScriptSource(name: ChatScript): string {
  return [CHAT_INPUTS, CHAT_HELPERS, CHAT_SCRIPTS[name]].join("\n");
}
