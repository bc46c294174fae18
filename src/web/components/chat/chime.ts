import { useCallback, useState } from "react";
import { deviceStorage } from "../../lib/storage.ts";

/** Whether the visitor asked for a sound on a match or a message while the tab is hidden. */
const soundKey = deviceStorage("tidings-chat-sound");

let context: AudioContext | null = null;

/**
 * A short, soft two-note tone, made here rather than fetched. A browser that refuses sound
 * (no user gesture yet, no audio device) plays nothing, quietly: the tab's title and icon say
 * it too.
 */
export function chime(): void {
  try {
    context ??= new AudioContext();
    if (context.state === "suspended") void context.resume().catch(() => {});
    const start = context.currentTime + 0.02;
    for (const [offset, frequency] of [
      [0, 660],
      [0.14, 880],
    ] as const) {
      const at = start + offset;
      const tone = context.createOscillator();
      const gain = context.createGain();
      tone.type = "sine";
      tone.frequency.value = frequency;
      // Rises and fades gently: no click at either end.
      gain.gain.setValueAtTime(0.0001, at);
      gain.gain.exponentialRampToValueAtTime(0.08, at + 0.03);
      gain.gain.exponentialRampToValueAtTime(0.0001, at + 0.5);
      tone.connect(gain).connect(context.destination);
      tone.start(at);
      tone.stop(at + 0.55);
    }
  } catch {
    // No Web Audio here: the title and the icon still say it.
  }
}

/** The sound switch's state, kept on the device; off until the visitor turns it on. */
export interface ChatSound {
  on: boolean;
  set: (on: boolean) => void;
}

export function useChatSound(): ChatSound {
  const [on, setOn] = useState(() => soundKey.read() === "on");
  const set = useCallback((next: boolean) => {
    setOn(next);
    if (next) {
      soundKey.write("on");
      // Heard once at the switch (a gesture, which also lets the page play sound later).
      chime();
    } else soundKey.remove();
  }, []);
  return { on, set };
}
