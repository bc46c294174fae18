import {
  type ChangeEvent,
  type FormEvent,
  type KeyboardEvent,
  type RefObject,
  useId,
  useState,
} from "react";
import { CHAT_LIMITS } from "../../../common/chat.ts";
import { SendHorizontal } from "../../icons.ts";
import { useI18n } from "../../lib/i18n.tsx";

/** The length counter shows once a message gets this close to the limit. */
const COUNTER_FROM = CHAT_LIMITS.message - 200;

/**
 * The text box and send button of an open chat. Enter sends, Shift+Enter breaks the line; a
 * message the server refused comes back to the box.
 */
export function ChatComposer({
  disabled,
  composerRef,
  onSend,
  onTyping,
}: {
  disabled: boolean;
  composerRef: RefObject<HTMLTextAreaElement | null>;
  onSend: (text: string) => Promise<boolean>;
  onTyping: (text: string) => void;
}) {
  const { LL } = useI18n();
  const t = LL.randomChat;
  const id = useId();
  const [draft, setDraft] = useState("");
  const canSend = !disabled && draft.trim() !== "";

  const submit = () => {
    if (!canSend) return;
    const text = draft;
    setDraft("");
    void onSend(text).then((sent) => {
      // A refused message comes back to the box, unless something new was typed meanwhile.
      if (!sent) setDraft((current) => (current === "" ? text : current));
    });
  };

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    submit();
    composerRef.current?.focus();
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    // Never while an input method is composing (keyCode 229 on some browsers).
    if (event.key !== "Enter" || event.shiftKey || event.nativeEvent.isComposing) return;
    if (event.keyCode === 229) return;
    event.preventDefault();
    submit();
  };

  const onChange = (event: ChangeEvent<HTMLTextAreaElement>) => {
    setDraft(event.target.value);
    onTyping(event.target.value);
  };

  return (
    <>
      <form className="chat-composer" onSubmit={onSubmit}>
        <label htmlFor={`${id}-message`} className="visually-hidden">
          {t.message()}
        </label>
        <textarea
          id={`${id}-message`}
          ref={composerRef}
          className="chat-composer__input"
          rows={2}
          value={draft}
          onChange={onChange}
          onKeyDown={onKeyDown}
          maxLength={CHAT_LIMITS.message}
          placeholder={t.placeholder()}
          enterKeyHint="send"
          autoComplete="off"
          disabled={disabled}
          aria-describedby={`${id}-hint`}
        />
        <button
          type="submit"
          className="button button--primary chat-composer__send"
          disabled={!canSend}
          aria-label={t.send()}
        >
          <SendHorizontal aria-hidden="true" />
          <span className="chat-composer__send-text" aria-hidden="true">
            {t.send()}
          </span>
        </button>
      </form>
      <div className="chat-composer__under">
        <p id={`${id}-hint`} className="chat-composer__hint">
          {t.keyboardHint()}
        </p>
        {draft.length >= COUNTER_FROM && (
          <p className="chat-composer__counter">
            {LL.characters.count({ count: draft.length, limit: CHAT_LIMITS.message })}
          </p>
        )}
      </div>
    </>
  );
}
