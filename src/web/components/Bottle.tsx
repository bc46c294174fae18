import { useId } from "react";

export type BottleVariant = "blue" | "green" | "purple" | "amber";

export const bottleVariants: readonly BottleVariant[] = ["blue", "green", "purple", "amber"];

/**
 * Glass tints: the middle one is the --bottle-* colour of app.css; the outer two give the
 * glass its roundness. Kept here so the drawing looks the same wherever it is used.
 */
const glass: Record<BottleVariant, { light: string; base: string; dark: string }> = {
  blue: { light: "#bfdbfe", base: "#60a5fa", dark: "#1d4ed8" },
  green: { light: "#a7f3d0", base: "#34d399", dark: "#047857" },
  purple: { light: "#ddd6fe", base: "#a78bfa", dark: "#6d28d9" },
  amber: { light: "#fde68a", base: "#fbbf24", dark: "#b45309" },
};

/** A corked glass bottle with a rolled message inside. Decorative: hidden from assistive tech. */
export function Bottle({ variant, className }: { variant: BottleVariant; className?: string }) {
  const id = useId();
  const tint = glass[variant];
  const glassId = `${id}-glass`;
  const shineId = `${id}-shine`;
  return (
    <svg
      viewBox="0 0 60 100"
      className={className ? `bottle bottle--${variant} ${className}` : `bottle bottle--${variant}`}
      aria-hidden="true"
      focusable="false"
    >
      <defs>
        <linearGradient id={glassId} x1="0" y1="0" x2="1" y2="0">
          <stop offset="0" stopColor={tint.light} stopOpacity="0.95" />
          <stop offset="0.45" stopColor={tint.base} stopOpacity="0.85" />
          <stop offset="1" stopColor={tint.dark} stopOpacity="0.95" />
        </linearGradient>
        <linearGradient id={shineId} gradientUnits="userSpaceOnUse" x1="0" y1="50" x2="0" y2="84">
          <stop offset="0" stopColor="#ffffff" stopOpacity="0.85" />
          <stop offset="1" stopColor="#ffffff" stopOpacity="0.1" />
        </linearGradient>
      </defs>
      {/* Cork */}
      <rect x="23" y="3" width="14" height="13" rx="3" fill="#c28a55" />
      <path d="M26 6v7M30 5v9M34 6v7" stroke="#8a5a2e" strokeWidth="1.2" strokeLinecap="round" />
      {/* Glass */}
      <path
        d="M24 15h12v12c0 6 13 9 13 20v38c0 6-4 10-10 10H21c-6 0-10-4-10-10V47c0-11 13-14 13-20z"
        fill={`url(#${glassId})`}
        stroke={tint.dark}
        strokeWidth="1.5"
        strokeLinejoin="round"
      />
      <rect x="22" y="14" width="16" height="5" rx="2.5" fill={tint.light} stroke={tint.dark} />
      {/* The rolled message and its ribbon */}
      <g transform="rotate(-8 30 68)">
        <rect x="20" y="50" width="20" height="34" rx="4" fill="#fbf1d6" />
        <path d="M23 57h14M23 62h12M23 72h14M23 77h10" stroke="#c9b48a" strokeWidth="1.2" />
        <rect x="19" y="65" width="22" height="4" rx="1.5" fill="#ff8a7a" />
      </g>
      {/* Light on the glass */}
      <path
        d="M17 50v34"
        stroke={`url(#${shineId})`}
        strokeWidth="3.5"
        strokeLinecap="round"
        fill="none"
      />
      <path
        d="M27 20v6"
        stroke="#ffffff"
        strokeOpacity="0.6"
        strokeWidth="2"
        strokeLinecap="round"
      />
    </svg>
  );
}
