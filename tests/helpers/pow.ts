import { solveChallenge } from "altcha-lib";
import { deriveKey } from "altcha-lib/algorithms/pbkdf2";
import type { PowAction, PowChallenge } from "../../src/common/pow.ts";

/**
 * Solves a challenge as the browser does (altcha-lib's solver; PBKDF2 through node:crypto
 * here, WebCrypto there) and returns the payload a call carries in its `pow` field.
 */
export async function solvePow(challenge: PowChallenge): Promise<string> {
  const solution = await solveChallenge({ challenge, deriveKey });
  if (!solution) throw new Error("the challenge could not be solved");
  return JSON.stringify({ challenge, solution });
}

/** What a test client needs: the challenge mutation of the API. */
interface PowApi {
  pow: {
    challenge: {
      mutate(input: { action: PowAction }): Promise<{ challenge: PowChallenge | null }>;
    };
  };
}

/** Asks the server for a challenge for `action` and solves it, as the web does in the background. */
export async function solvedFor(api: PowApi, action: PowAction): Promise<string> {
  const { challenge } = await api.pow.challenge.mutate({ action });
  if (!challenge) throw new Error(`no challenge was issued for ${action}`);
  return solvePow(challenge);
}
