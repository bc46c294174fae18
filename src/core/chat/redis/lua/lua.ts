/** Marks a template string as Lua: kept as written (String.raw), so Lua's escapes read as Lua's. */
export const lua = String.raw;
