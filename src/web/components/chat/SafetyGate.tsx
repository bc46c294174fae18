import { useEffect, useRef } from "react";
import { toast } from "sonner";
import { type Country, countryName, flagOf } from "../../../common/country.ts";
import { Flag, Globe, HeartHandshake, PenLine, Search, ShieldAlert } from "../../icons.ts";
import { errorMessage } from "../../lib/errors.ts";
import { useI18n } from "../../lib/i18n.tsx";
import { trpc } from "../../lib/trpc.ts";
import { AgeAnswers } from "../AgeAnswers.tsx";
import { PageLink } from "../PageLink.tsx";
import "./safety.css";

/** Records the answer where the page reads it (chat.me), so the start card follows at once. */
function useAnswerAge() {
  const utils = trpc.useUtils();
  const confirm = trpc.chat.confirmAge.useMutation({
    onSuccess: ({ age }) => {
      utils.chat.me.setData(undefined, (me) => (me ? { ...me, age } : me));
    },
  });
  return confirm;
}

/**
 * The safety gate before the first chat: what to keep to oneself, what one can do at any
 * moment, what the partner sees, and "I am 18 or older" (or "I am under 18", which keeps the
 * chat closed for this visitor; the server holds that answer for 30 days).
 */
export function SafetyGate({
  me,
  onAnswered,
}: {
  me: { country: Country } | undefined;
  onAnswered: () => void;
}) {
  const { LL, locale } = useI18n();
  const t = LL.randomChat.gate;
  const confirm = useAnswerAge();
  const answer = (adult: boolean) =>
    confirm.mutate(
      { adult },
      {
        onSuccess: onAnswered,
        onError: (error) =>
          toast.error(LL.randomChat.gate.failedTitle(), { description: errorMessage(LL, error) }),
      },
    );
  const country = me ? countryName(me.country.code, locale) : LL.randomChat.countryLoading();
  return (
    <div className="chat-gate" aria-busy={confirm.isPending}>
      <h3 className="chat-gate__title">{t.title()}</h3>
      <ul className="chat-gate__rules">
        <li>
          <ShieldAlert aria-hidden="true" />
          <span>{t.contact()}</span>
        </li>
        <li>
          <Flag aria-hidden="true" />
          <span>{t.anyMoment()}</span>
        </li>
        <li>
          <Globe aria-hidden="true" />
          <span>
            {t.partnerSees()}{" "}
            <strong className="chat-gate__country">
              <span aria-hidden="true">{me ? flagOf(me.country.code) : "🌐"}</span> {country}
            </strong>
          </span>
        </li>
      </ul>
      <fieldset className="chat-gate__answer">
        <legend className="chat-gate__question">{t.question()}</legend>
        <AgeAnswers
          className="button-row"
          busy={confirm.isPending}
          older={t.adult()}
          younger={t.under18()}
          onAnswer={answer}
        />
      </fieldset>
    </div>
  );
}

/**
 * The kind answer to "I am under 18": no chat, and where else to go. Given just now
 * (`focusOnMount`), it takes the focus the answer's button had, which also brings its title
 * into view on a phone.
 */
export function ChatRefused({ focusOnMount = false }: { focusOnMount?: boolean }) {
  const t = useI18n().LL.randomChat.refused;
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (focusOnMount) box.current?.focus();
  }, [focusOnMount]);
  return (
    <div className="chat-gate chat-gate--refused" role="status" tabIndex={-1} ref={box}>
      <HeartHandshake aria-hidden="true" className="chat-gate__icon" />
      <h3 className="chat-gate__title">{t.title()}</h3>
      <p>{t.body()}</p>
      <p className="chat-gate__hint">{t.elsewhere()}</p>
      <div className="button-row">
        <PageLink to="create" icon={PenLine} className="button button--primary">
          {t.write()}
        </PageLink>
        <PageLink to="discover" icon={Search} className="button button--ghost">
          {t.find()}
        </PageLink>
      </div>
    </div>
  );
}
