import { type RefObject, useId, useRef, useState } from "react";
import { toast } from "sonner";
import { type BottleCard as BottleCardData, bottleReportReasons } from "../../common/bottles.ts";
import { countryName, flagOf } from "../../common/country.ts";
import { Clock, Flag, Heart, Hourglass } from "../icons.ts";
import { useAccount } from "../lib/account.ts";
import { useI18n } from "../lib/i18n.tsx";
import { around } from "../lib/placeholder.ts";
import { trpc } from "../lib/trpc.ts";
import { useBottleLike } from "./bottle/useBottleLike.ts";
import { ReportDialog } from "./LazyReportDialog.tsx";
import { SignInRequiredDialog } from "./SignInRequiredDialog.tsx";
import { TranslateMenu } from "./translate/TranslateMenu.tsx";
import { TranslationNote } from "./translate/TranslationNote.tsx";
import { useTextTranslation } from "./translate/useTextTranslation.ts";
import "./BottleCard.css";

export interface BottleCardProps {
  bottle: BottleCardData;
  /** The heading's id, for a dialog that takes its name from the card. */
  headingId?: string;
  /** The heading's level (2 by default). */
  headingLevel?: 2 | 3;
  className?: string;
}

/**
 * One bottle as a reader sees it: where it came from, when it was sent, how long it drifted,
 * the message, and like, report and translate. Like and report need an account; without one
 * they open the sign-in-required dialog.
 */
export function BottleCard({ bottle, headingId, headingLevel = 2, className }: BottleCardProps) {
  const { LL, locale } = useI18n();
  const t = LL.discover.card;
  const ownHeadingId = useId();
  const titleId = headingId ?? ownHeadingId;
  const { user, pending: accountPending } = useAccount();

  const [signInOpen, setSignInOpen] = useState(false);
  const [signInReason, setSignInReason] = useState<string>();
  const [reportOpen, setReportOpen] = useState(false);
  const report = trpc.bottles.report.useMutation();

  const translate = trpc.translate.bottle.useMutation();
  const utils = trpc.useUtils();
  // A bottle from discover carries its pass: without it, only a public bottle translates.
  const asked = { bottleId: bottle.id, shownPass: bottle.shownPass };
  const translation = useTextTranslation(
    bottle.message,
    () => utils.translate.languages.fetch(asked, { staleTime: Infinity }),
    (target) => translate.mutateAsync({ ...asked, target }),
  );

  const hasId = Number.isInteger(bottle.id) && bottle.id > 0;
  const signedOut = !user && !accountPending;

  // The button that asked for an account takes focus back when the sign-in dialog closes.
  const likeButton = useRef<HTMLButtonElement>(null);
  const reportButton = useRef<HTMLButtonElement>(null);
  const signInOpener = useRef<HTMLButtonElement | null>(null);
  const askToSignIn = (reason: string, opener: RefObject<HTMLButtonElement | null>) => {
    signInOpener.current = opener.current;
    setSignInReason(reason);
    setSignInOpen(true);
  };

  const { like, onLike } = useBottleLike(bottle, { signedIn: !!user, signedOut }, (reason) =>
    askToSignIn(reason, likeButton),
  );

  const onReport = () => {
    if (!hasId) {
      toast.error(t.cannotReport());
      return;
    }
    if (signedOut) {
      askToSignIn(t.reportSignIn(), reportButton);
      return;
    }
    setReportOpen(true);
  };

  const country = countryName(bottle.country.code, locale);
  const [fromBefore, fromAfter] = around((marker) => t.from({ country: marker }));
  const sent = new Date(bottle.createdAt);
  const sentText = new Intl.DateTimeFormat(locale, {
    dateStyle: "medium",
    timeStyle: "short",
  }).format(sent);
  const Heading = headingLevel === 3 ? "h3" : "h2";

  return (
    <article
      className={className ? `bottle-card ${className}` : "bottle-card"}
      aria-labelledby={titleId}
    >
      <header className="bottle-card__header">
        <span className="flag-badge bottle-card__flag" aria-hidden="true">
          {flagOf(bottle.country.code)}
        </span>
        <Heading id={titleId} className="bottle-card__country" tabIndex={-1}>
          {fromBefore && <span className="visually-hidden">{fromBefore}</span>}
          {country}
          {fromAfter && <span className="visually-hidden">{fromAfter}</span>}
        </Heading>
        <ul className="bottle-card__meta">
          <li>
            <Clock aria-hidden="true" />
            <time dateTime={sent.toISOString()}>{t.sent({ date: sentText })}</time>
          </li>
          <li>
            <Hourglass aria-hidden="true" />
            {bottle.driftHours > 0 ? t.drift({ hours: bottle.driftHours }) : t.driftNone()}
          </li>
        </ul>
      </header>

      <div className="bottle-card__paper">
        <p className="bottle-card__message" lang={translation.shownLanguage}>
          {translation.shownText}
        </p>
      </div>

      <TranslationNote of={translation} className="bottle-card__translated" />

      <div className="bottle-card__actions">
        <button
          type="button"
          className={like.liked ? "bottle-action bottle-action--like is-liked" : "bottle-action"}
          ref={likeButton}
          aria-pressed={like.liked}
          aria-label={t.likeLabel({ count: like.count })}
          onClick={onLike}
        >
          <Heart aria-hidden="true" />
          <span aria-hidden="true">{like.count}</span>
        </button>

        <button
          type="button"
          className="bottle-action"
          ref={reportButton}
          aria-label={t.reportLabel()}
          onClick={onReport}
        >
          <Flag aria-hidden="true" />
          <span aria-hidden="true">{LL.report.report()}</span>
        </button>

        <TranslateMenu
          of={translation}
          triggerClassName="bottle-action"
          align="end"
          sideOffset={8}
        />
      </div>

      <ReportDialog
        open={reportOpen}
        onOpenChange={setReportOpen}
        reasons={bottleReportReasons}
        reasonLabel={(reason) => t.reasons[reason]()}
        title={t.reportTitle()}
        lead={t.reportLead()}
        submit={(reason) => report.mutateAsync({ bottleId: bottle.id, reason })}
        notFound={t.reportNotFound()}
        onSignInNeeded={() => askToSignIn(t.reportSignIn(), reportButton)}
        returnFocus={() => reportButton.current}
      />
      <SignInRequiredDialog
        open={signInOpen}
        onOpenChange={setSignInOpen}
        reason={signInReason}
        returnFocus={() => signInOpener.current}
        bottle={bottle}
      />
    </article>
  );
}
