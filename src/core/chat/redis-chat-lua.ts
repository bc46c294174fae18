/** A chat's Lua scripts: see redis/lua/chat/ (one module per group of scripts). */
export {
  CHAT_ARGS,
  CHAT_SCRIPTS,
  type ChatScript,
  chatScriptSource,
} from "./redis/lua/chat/index.ts";
