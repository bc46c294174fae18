/** The pool's Lua scripts: see redis/lua/pool/ (one module per group of scripts). */
export {
  BEAT,
  LEASE_RELEASE,
  LEASE_TAKE,
  POOL_ARGS,
  POOL_SCRIPTS,
  type PoolScript,
  poolScriptSource,
  RESTORE_ARGS,
} from "./redis/lua/pool/index.ts";
