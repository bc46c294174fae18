import {
  Check,
  ChevronDown,
  Clock,
  Flag,
  Heart,
  Hourglass,
  Languages,
  LoaderCircle,
  Redo2,
  Undo2,
} from "lucide-react";
import { Dialog, DropdownMenu, RadioGroup } from "radix-ui";
import { type FormEvent, useId, useRef, useState } from "react";
import { toast } from "sonner";
import type { TranslationFunctions } from "../../../i18n/i18n-types";
import {
  type BottleCard as BottleCardData,
  type BottleReportReason,
  bottleReportReasons,
} from "../../common/bottles.ts";
import { countryName, flagOf } from "../../common/country.ts";
import { type TargetLanguage, targetLanguages } from "../../common/translation.ts";
import { useAccount } from "../lib/account.ts";
import { appCodeOf, errorMessage } from "../lib/errors.ts";
import { useI18n } from "../lib/i18n.tsx";
import { around } from "../lib/placeholder.ts";
import { trpc } from "../lib/trpc.ts";
import { SignInRequiredDialog } from "./SignInRequiredDialog.tsx";
import "./dialog.css";
import "./BottleCard.css";

type LanguageKey = keyof TranslationFunctions["discover"]["card"]["languages"];

/** The translate menu's languages (spec 9), each in its own name and under its dictionary key. */
const languages: Record<TargetLanguage, { autonym: string; key: LanguageKey }> = {
  en: { autonym: "English", key: "en" },
  "zh-TW": { autonym: "繁體中文", key: "zhTW" },
  "zh-CN": { autonym: "简体中文", key: "zhCN" },
  ja: { autonym: "日本語", key: "ja" },
  ko: { autonym: "한국어", key: "ko" },
  es: { autonym: "Español", key: "es" },
  fr: { autonym: "Français", key: "fr" },
  de: { autonym: "Deutsch", key: "de" },
};

/** The server's list of targets is stable for the life of the page. */
const LANGUAGES_STALE_MS = Number.POSITIVE_INFINITY;

interface LikeState {
  liked: boolean;
  count: number;
}

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
  const utils = trpc.useUtils();

  // Like: shown at once, then set to what the server answers.
  const serverLike = `${bottle.id}:${bottle.isLiked}:${bottle.likeCount}`;
  const [seenServerLike, setSeenServerLike] = useState(serverLike);
  const [like, setLike] = useState<LikeState>({
    liked: bottle.isLiked,
    count: bottle.likeCount,
  });
  if (seenServerLike !== serverLike) {
    // Fresh data from the server (a refetch after signing in or out) wins over what we showed.
    setSeenServerLike(serverLike);
    setLike({ liked: bottle.isLiked, count: bottle.likeCount });
  }
  const liking = useRef(false);
  const toggleLike = trpc.bottles.toggleLike.useMutation();

  const [signInOpen, setSignInOpen] = useState(false);
  const [signInReason, setSignInReason] = useState<string>();
  const [reportOpen, setReportOpen] = useState(false);

  const [translation, setTranslation] = useState<{ text: string; target: TargetLanguage }>();
  const [showOriginal, setShowOriginal] = useState(false);
  const translate = trpc.translate.bottle.useMutation();
  const [menuOpen, setMenuOpen] = useState(false);
  const available = trpc.translate.languages.useQuery(undefined, {
    staleTime: LANGUAGES_STALE_MS,
  });
  // Until the server has said (or if it cannot say), every language is offered: it decides.
  const offered = available.data ? new Set<TargetLanguage>(available.data.targets) : undefined;

  const hasId = Number.isInteger(bottle.id) && bottle.id > 0;
  const signedOut = !user && !accountPending;

  const askToSignIn = (reason: string) => {
    setSignInReason(reason);
    setSignInOpen(true);
  };

  /** Keeps the public list's copy in step, so reopening the bottle shows the new count. */
  const rememberLike = (next: LikeState) => {
    utils.bottles.publicList.setData(undefined, (old) =>
      old
        ? {
            bottles: old.bottles.map((b) =>
              b.id === bottle.id ? { ...b, isLiked: next.liked, likeCount: next.count } : b,
            ),
          }
        : old,
    );
  };

  const onLike = async () => {
    if (!hasId) {
      toast.error(t.cannotLike());
      return;
    }
    if (signedOut) {
      askToSignIn(t.likeSignIn());
      return;
    }
    if (liking.current) return;
    liking.current = true;
    const before = like;
    setLike({ liked: !before.liked, count: Math.max(0, before.count + (before.liked ? -1 : 1)) });
    try {
      const result = await toggleLike.mutateAsync({ bottleId: bottle.id });
      const next = { liked: result.liked, count: result.count };
      setLike(next);
      setSeenServerLike(`${bottle.id}:${next.liked}:${next.count}`);
      rememberLike(next);
    } catch (error) {
      setLike(before);
      const code = appCodeOf(error);
      if (code === "UNAUTHORIZED") {
        askToSignIn(t.likeSignIn());
      } else {
        toast.error(t.likeFailedTitle(), {
          description: code === "RATE_LIMITED" ? errorMessage(LL, error) : t.likeFailedBody(),
        });
      }
    } finally {
      liking.current = false;
    }
  };

  const onReport = () => {
    if (!hasId) {
      toast.error(t.cannotReport());
      return;
    }
    if (signedOut) {
      askToSignIn(t.reportSignIn());
      return;
    }
    setReportOpen(true);
  };

  const onTranslate = async (target: TargetLanguage) => {
    // One translation at a time (spec 5).
    if (translate.isPending) return;
    const language = t.languages[languages[target].key]();
    try {
      const result = await translate.mutateAsync({ bottleId: bottle.id, target });
      setTranslation({ text: result.text, target: result.target });
      setShowOriginal(false);
      toast.success(t.translatedTitle(), { description: t.translatedBody({ language }) });
    } catch (error) {
      const code = appCodeOf(error);
      let description: string = t.translateFailedBody();
      if (code === "TRANSLATION_UNSUPPORTED") description = t.translateUnsupported({ language });
      if (code === "RATE_LIMITED") description = errorMessage(LL, error);
      toast.error(t.translateFailedTitle(), { description });
    }
  };

  const showing = translation && !showOriginal ? translation : undefined;
  const country = countryName(bottle.countryCode, locale);
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
        <span className="bottle-card__flag" aria-hidden="true">
          {flagOf(bottle.countryCode)}
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
        <p className="bottle-card__message" lang={showing?.target}>
          {showing ? showing.text : bottle.message}
        </p>
      </div>

      {translation && (
        <p className="bottle-card__translated">
          <Languages aria-hidden="true" />
          <span>
            {showOriginal
              ? t.original()
              : t.translatedTo({ language: t.languages[languages[translation.target].key]() })}
          </span>
          <button
            type="button"
            className="bottle-card__link-button"
            onClick={() => setShowOriginal((value) => !value)}
          >
            {showOriginal ? <Redo2 aria-hidden="true" /> : <Undo2 aria-hidden="true" />}
            {showOriginal ? t.showTranslation() : t.showOriginal()}
          </button>
        </p>
      )}

      <div className="bottle-card__actions">
        <button
          type="button"
          className={like.liked ? "bottle-action bottle-action--like is-liked" : "bottle-action"}
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
          aria-label={t.reportLabel()}
          onClick={onReport}
        >
          <Flag aria-hidden="true" />
          <span aria-hidden="true">{t.report()}</span>
        </button>

        <DropdownMenu.Root
          open={menuOpen}
          onOpenChange={(next) => setMenuOpen(next && !translate.isPending)}
        >
          {/* Not disabled while translating: focus returns here when the menu closes. */}
          <DropdownMenu.Trigger
            className="bottle-action"
            aria-disabled={translate.isPending || undefined}
            aria-busy={translate.isPending || undefined}
          >
            {translate.isPending ? (
              <LoaderCircle aria-hidden="true" className="bottle-action__spinner" />
            ) : (
              <Languages aria-hidden="true" />
            )}
            {translate.isPending ? t.translating() : t.translate()}
            <ChevronDown aria-hidden="true" className="bottle-action__chevron" />
          </DropdownMenu.Trigger>
          <DropdownMenu.Portal>
            <DropdownMenu.Content
              className="menu translate-menu"
              align="end"
              sideOffset={8}
              collisionPadding={12}
            >
              <DropdownMenu.Label className="translate-menu__label">
                {t.translateMenu()}
              </DropdownMenu.Label>
              {targetLanguages.map((target) => {
                const unavailable = offered !== undefined && !offered.has(target);
                const current = showing?.target === target;
                return (
                  <DropdownMenu.Item
                    key={target}
                    className="menu__item translate-menu__item"
                    disabled={unavailable}
                    onSelect={() => void onTranslate(target)}
                  >
                    <span className="translate-menu__text">
                      <span lang={target}>{languages[target].autonym}</span>
                      {unavailable && (
                        <span className="translate-menu__note">{t.unavailable()}</span>
                      )}
                    </span>
                    {current && <Check aria-hidden="true" className="menu__check" />}
                  </DropdownMenu.Item>
                );
              })}
            </DropdownMenu.Content>
          </DropdownMenu.Portal>
        </DropdownMenu.Root>
      </div>

      <ReportDialog
        open={reportOpen}
        onOpenChange={setReportOpen}
        bottleId={bottle.id}
        onSignInNeeded={() => askToSignIn(t.reportSignIn())}
      />
      <SignInRequiredDialog open={signInOpen} onOpenChange={setSignInOpen} reason={signInReason} />
    </article>
  );
}

/** Asks why the bottle should be removed and sends the report (signed-in users only). */
function ReportDialog({
  open,
  onOpenChange,
  bottleId,
  onSignInNeeded,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  bottleId: number;
  onSignInNeeded: () => void;
}) {
  const { LL } = useI18n();
  const t = LL.discover.card;
  const id = useId();
  const [reason, setReason] = useState<BottleReportReason>();
  const [missing, setMissing] = useState(false);
  const report = trpc.bottles.report.useMutation();
  const firstRadio = useRef<HTMLButtonElement>(null);

  const changeOpen = (next: boolean) => {
    if (!next && report.isPending) return;
    if (!next) {
      setReason(undefined);
      setMissing(false);
    }
    onOpenChange(next);
  };

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (report.isPending) return;
    if (!reason) {
      setMissing(true);
      firstRadio.current?.focus();
      return;
    }
    try {
      await report.mutateAsync({ bottleId, reason });
      changeOpen(false);
      toast.success(t.reportedTitle(), { description: t.reportedBody() });
    } catch (error) {
      const code = appCodeOf(error);
      if (code === "UNAUTHORIZED") {
        changeOpen(false);
        onSignInNeeded();
        return;
      }
      let description: string = t.reportFailedBody();
      if (code === "NOT_FOUND") description = t.reportNotFound();
      if (code === "RATE_LIMITED") description = errorMessage(LL, error);
      toast.error(t.reportFailedTitle(), { description });
    }
  };

  const legendId = `${id}-legend`;
  const errorId = `${id}-error`;

  return (
    <Dialog.Root open={open} onOpenChange={changeOpen}>
      <Dialog.Portal>
        <Dialog.Overlay className="dialog-overlay" />
        <Dialog.Content className="dialog report-dialog">
          <div className="dialog__icon dialog__icon--danger" aria-hidden="true">
            <Flag />
          </div>
          <Dialog.Title className="dialog__title">{t.reportTitle()}</Dialog.Title>
          <Dialog.Description className="dialog__body">{t.reportLead()}</Dialog.Description>
          <form noValidate onSubmit={onSubmit} aria-busy={report.isPending}>
            <p id={legendId} className="report-dialog__legend">
              {t.reportReason()}
            </p>
            <RadioGroup.Root
              className="report-reasons"
              aria-labelledby={legendId}
              aria-describedby={missing ? errorId : undefined}
              aria-invalid={missing ? true : undefined}
              aria-required="true"
              value={reason ?? ""}
              onValueChange={(value) => {
                setReason(value as BottleReportReason);
                setMissing(false);
              }}
              disabled={report.isPending}
            >
              {bottleReportReasons.map((value, index) => (
                <div key={value} className="report-reason">
                  <RadioGroup.Item
                    id={`${id}-${value}`}
                    value={value}
                    className="report-reason__radio"
                    ref={index === 0 ? firstRadio : undefined}
                  >
                    <RadioGroup.Indicator className="report-reason__dot" />
                  </RadioGroup.Item>
                  <label htmlFor={`${id}-${value}`} className="report-reason__label">
                    {t.reasons[value]()}
                  </label>
                </div>
              ))}
            </RadioGroup.Root>
            {missing && (
              <p id={errorId} className="field__error report-dialog__error">
                {t.reportChoose()}
              </p>
            )}
            <div className="dialog__actions">
              <Dialog.Close className="button button--ghost" disabled={report.isPending}>
                {t.reportCancel()}
              </Dialog.Close>
              <button
                type="submit"
                className="button report-dialog__submit"
                disabled={report.isPending}
              >
                {report.isPending ? (
                  <LoaderCircle aria-hidden="true" className="bottle-action__spinner" />
                ) : (
                  <Flag aria-hidden="true" />
                )}
                {report.isPending ? t.reportSubmitting() : t.reportSubmit()}
              </button>
            </div>
          </form>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
