import { useLocation } from "@tanstack/react-router";
import { useEffect, useState } from "react";
import type { BottleCard } from "../../common/bottles.ts";
import type { Country } from "../../common/country.ts";
import { tabStorage } from "./storage.ts";

// The bottle a signed-out reader was reading when they went to sign in (to like or report it),
// kept in this tab, so the page they come back to shows it again instead of a new random one:
// discover would otherwise search afresh, and never show a bottle it showed them lately. It is
// what they had on screen already, kept for half an hour and for one return only.

const stored = tabStorage("bottle-before-sign-in");
const KEEP_MS = 30 * 60 * 1000;

interface Kept {
  path: string;
  at: number;
  bottle: BottleCard;
}

function isCountry(value: unknown): value is Country {
  if (typeof value !== "object" || value === null) return false;
  const c = value as Record<string, unknown>;
  return (typeof c.code === "string" || c.code === null) && typeof c.name === "string";
}

function isBottle(value: unknown): value is BottleCard {
  if (typeof value !== "object" || value === null) return false;
  const b = value as Record<string, unknown>;
  return (
    Number.isInteger(b.id) &&
    typeof b.message === "string" &&
    isCountry(b.country) &&
    typeof b.driftHours === "number" &&
    typeof b.isPublic === "boolean" &&
    typeof b.createdAt === "number" &&
    typeof b.likeCount === "number" &&
    typeof b.isLiked === "boolean" &&
    (b.shownPass === undefined || typeof b.shownPass === "string")
  );
}

/** Keeps `bottle` for the reader's return to `path` (the page's pathname). */
export function keepBottleForReturn(path: string, bottle: BottleCard): void {
  const kept: Kept = { path, at: Date.now(), bottle };
  stored.write(JSON.stringify(kept));
}

/** The bottle kept for a return to `path`, if it is recent; reading it changes nothing. */
export function bottleOnReturn(path: string): BottleCard | null {
  try {
    const kept = JSON.parse(stored.read() ?? "null") as Partial<Kept> | null;
    if (!kept || kept.path !== path || typeof kept.at !== "number") return null;
    if (Date.now() - kept.at > KEEP_MS || Date.now() < kept.at) return null;
    return isBottle(kept.bottle) ? kept.bottle : null;
  } catch {
    return null;
  }
}

/** The bottles this page load shows again as their reader saw them signed out. */
const shownAsSeenSignedOut = new Set<number>();

/** Whether the bottle's heart on screen is what its reader saw signed out (see useBottleLike). */
export const keptSignedOut = (bottleId: number) => shownAsSeenSignedOut.has(bottleId);

/** Forgets the kept bottle once a page has shown it. */
export const forgetReturningBottle = stored.remove;

/**
 * The bottle kept for the reader's return to this page, read once when the page opens (and
 * then forgotten, so a reload searches afresh).
 */
export function useReturningBottle(): BottleCard | null {
  const { pathname } = useLocation();
  const [bottle] = useState(() => {
    const kept = bottleOnReturn(pathname);
    if (kept) shownAsSeenSignedOut.add(kept.id);
    return kept;
  });
  useEffect(() => {
    if (bottle) forgetReturningBottle();
  }, [bottle]);
  return bottle;
}
