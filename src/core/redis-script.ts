import type Redis from "ioredis";

/**
 * A Lua script run by its hash: loaded once, and again when Redis answers NOSCRIPT (after a
 * restart or a SCRIPT FLUSH), so each call sends the hash, not the script.
 */
export class RedisScript {
  #sha: string | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly source: string,
  ) {}

  async run(keys: readonly string[], args: ReadonlyArray<string | number>): Promise<unknown> {
    this.#sha ??= (await this.redis.script("LOAD", this.source)) as string;
    try {
      return await this.redis.evalsha(this.#sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!String(error).includes("NOSCRIPT")) throw error;
      this.#sha = undefined;
      return this.redis.eval(this.source, keys.length, ...keys, ...args);
    }
  }
}
