import { randomBytes } from "node:crypto";

/**
 * Random ids of 12 base64url characters (72 random bits, as randomBytes(9) gives), cut from one
 * larger draw: asking the system for random bytes once per chat message costs more than the
 * rest of relaying it. Both brokers name messages with them.
 */
export class RandomIds {
  static readonly BYTES_PER_ID = 9;
  static readonly CHARS_PER_ID = 12;
  #pool = "";
  #at = 0;

  constructor(private readonly perDraw = 256) {}

  next(): string {
    if (this.#at >= this.#pool.length) {
      this.#pool = randomBytes(RandomIds.BYTES_PER_ID * this.perDraw).toString("base64url");
      this.#at = 0;
    }
    const id = this.#pool.slice(this.#at, this.#at + RandomIds.CHARS_PER_ID);
    this.#at += RandomIds.CHARS_PER_ID;
    return id;
  }
}
