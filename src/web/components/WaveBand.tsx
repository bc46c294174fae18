/**
 * Wave drawings, one period repeated so a CSS animation can scroll them: `sea` (one period is
 * 360 units; the path holds four, the view shows two) for the home page and the throw scene,
 * `swell` for the discover scene.
 */
const shapes = {
  sea: {
    viewBox: "0 0 1440 48",
    path: "M0 24 Q90 0 180 24 T360 24 T540 24 T720 24 T900 24 T1080 24 T1260 24 T1440 24 V48 H0 Z",
  },
  swell: {
    viewBox: "0 0 960 40",
    path: "M0 20 Q60 4 120 20 T240 20 T360 20 T480 20 T600 20 T720 20 T840 20 T960 20 V40 H0 Z",
  },
} as const;

/** A band of waves; decorative, hidden from assistive technology. `back` is the lighter one. */
export function WaveBand({
  className,
  shape = "sea",
  back = false,
}: {
  className: string;
  shape?: keyof typeof shapes;
  back?: boolean;
}) {
  const { viewBox, path } = shapes[shape];
  // The box that moves is HTML: the browser slides it on the compositor, where a moving <svg>
  // of its own is drawn again on the main thread every frame, for as long as the page is open.
  return (
    <div
      className={back ? `wave-band wave-band--back ${className}` : `wave-band ${className}`}
      aria-hidden="true"
    >
      <svg viewBox={viewBox} preserveAspectRatio="none" aria-hidden="true" focusable="false">
        <path d={path} />
      </svg>
    </div>
  );
}
