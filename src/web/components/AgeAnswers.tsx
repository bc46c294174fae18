/**
 * The two answers of an age question, as both age gates ask it: the older one first and
 * primary, the younger one quiet beside it; both wait while an answer is on its way.
 */
export function AgeAnswers({
  className,
  busy,
  older,
  younger,
  onAnswer,
}: {
  className: string;
  busy: boolean;
  older: string;
  younger: string;
  onAnswer: (older: boolean) => void;
}) {
  return (
    <div className={className}>
      <button
        type="button"
        className="button button--primary"
        disabled={busy}
        onClick={() => onAnswer(true)}
      >
        {older}
      </button>
      <button
        type="button"
        className="button button--ghost"
        disabled={busy}
        onClick={() => onAnswer(false)}
      >
        {younger}
      </button>
    </div>
  );
}
