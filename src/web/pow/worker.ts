/// <reference lib="webworker" />
/**
 * Solves one proof-of-work challenge off the page's thread, with altcha-lib's own solver and
 * its WebCrypto PBKDF2 (through their public exports). Built as a file of its own and served
 * from the site's origin, as the Content-Security-Policy requires of a worker.
 */
import { solveChallenge } from "altcha-lib";
import { deriveKey } from "altcha-lib/algorithms/web/pbkdf2";
import type { PowChallenge } from "../../common/pow.ts";

declare const self: DedicatedWorkerGlobalScope;

self.onmessage = async (event: MessageEvent<PowChallenge>) => {
  try {
    const solution = await solveChallenge({ challenge: event.data, deriveKey });
    self.postMessage({ solution });
  } catch (error) {
    self.postMessage({ error: String(error) });
  }
};
