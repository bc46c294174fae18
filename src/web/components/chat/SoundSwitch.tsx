import { useId } from "react";
import { Bell, BellOff } from "../../icons.ts";
import { useI18n } from "../../lib/i18n.tsx";
import type { ChatSound } from "./chime.ts";

/** The switch for a soft sound on a match or a message while the tab is in the background. */
export function SoundSwitch({ sound, className }: { sound: ChatSound; className?: string }) {
  const t = useI18n().LL.randomChat.sound;
  const hintId = useId();
  return (
    <div className={className ? `chat-sound ${className}` : "chat-sound"}>
      <button
        type="button"
        role="switch"
        aria-checked={sound.on}
        aria-describedby={hintId}
        className="chat-sound__control"
        onClick={() => sound.set(!sound.on)}
      >
        {sound.on ? <Bell aria-hidden="true" /> : <BellOff aria-hidden="true" />}
        <span className="chat-sound__label">{t.label()}</span>
        <span className="chat-sound__track" aria-hidden="true">
          <span className="chat-sound__thumb" />
        </span>
      </button>
      <span id={hintId} className="visually-hidden">
        {t.hint()}
      </span>
    </div>
  );
}
