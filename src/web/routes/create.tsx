import { useNavigate } from "@tanstack/react-router";
import { TRPCClientError } from "@trpc/client";
import { Check, Eye, LoaderCircle, Send } from "lucide-react";
import { Checkbox, RadioGroup, Slider } from "radix-ui";
import { type FormEvent, useCallback, useEffect, useId, useRef, useState } from "react";
import { toast } from "sonner";
import type { TranslationFunctions } from "../../../i18n/i18n-types";
import {
  BOTTLE_LIMITS,
  createBottleInput,
  DEFAULT_EXPIRY_DAYS,
  EXPIRY_DAY_OPTIONS,
} from "../../common/bottles.ts";
import { countryName, flagOf } from "../../common/country.ts";
import { type AppErrorData, type FieldIssue, toFieldIssues } from "../../common/errors.ts";
import type { Locale } from "../../common/locales.ts";
import { localizedPath } from "../../common/locales.ts";
import { Bottle, type BottleVariant, bottleVariants } from "../components/Bottle.tsx";
import { CharacterCount } from "../components/CharacterCount.tsx";
import { PageIntro } from "../components/PageIntro.tsx";
import { appCodeOf, errorMessage, fieldIssuesOf, issueMessage } from "../lib/errors.ts";
import { useI18n } from "../lib/i18n.tsx";
import { trpc } from "../lib/trpc.ts";
import "./create.css";

/** The success animation plays this long before the toast (spec 9: send success). */
const THROW_ANIMATION_MS = 3000;
/** After the toast, this long until the discover page (spec 9: send success). */
const REDIRECT_AFTER_TOAST_MS = 500;
/** An unknown country is looked up once more after this long (spec 9: location retry). */
const LOCATION_RETRY_MS = 2000;
/** The shortest the sending state lasts, so the button never flickers. */
const MIN_SENDING_MS = 600;
/** How often the surfacing and expiry times on screen are brought up to date. */
const CLOCK_TICK_MS = 30_000;
/** From this much drift on, the hours are also shown in days. */
const SHOW_DAYS_FROM_HOURS = 24;
const HOUR_MS = 60 * 60 * 1000;
/** Every refusal shares one toast, so a new one replaces the last and sending clears it. */
const ERROR_TOAST_ID = "create-error";
/** The time zone sent when the browser cannot name its own. */
const FALLBACK_TIME_ZONE = "UTC";

type Phase = "idle" | "sending" | "thrown";

/** A problem shown under a field: one the shared schema or the server found, or a refusal. */
type Problem = FieldIssue | { field: "message"; kind: "rejected" };
interface Problems {
  message?: Problem;
  driftHours?: Problem;
}
/** What takes focus once the form is enabled again. */
type FocusTarget = "message" | "driftHours" | "submit";

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The writer's IANA time zone; the server ends the expiry day there. */
function browserTimeZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || FALLBACK_TIME_ZONE;
  } catch {
    return FALLBACK_TIME_ZONE;
  }
}

/**
 * 23:59:59.999 local time, `days` after today. For display and the early check only: the
 * server computes the stored expiry from the time zone the browser sends.
 */
function expiryOf(now: number, days: number): number {
  const today = new Date(now);
  return new Date(
    today.getFullYear(),
    today.getMonth(),
    today.getDate() + days,
    23,
    59,
    59,
    999,
  ).getTime();
}

function formatWhen(instant: number, locale: Locale): string {
  return new Intl.DateTimeFormat(locale, {
    weekday: "short",
    month: "short",
    day: "numeric",
    hour: "numeric",
    minute: "2-digit",
  }).format(instant);
}

/** "Visible immediately", or "Drifts for N hours", with "≈ N days" from a day on. */
function driftLabels(LL: TranslationFunctions, hours: number): { main: string; days?: string } {
  if (hours === 0) return { main: LL.create.driftNone() };
  const main = LL.create.driftHours({ hours });
  if (hours < SHOW_DAYS_FROM_HOURS) return { main };
  return { main, days: LL.create.driftDays({ days: Math.round((hours / 24) * 10) / 10 }) };
}

function retryAfterOf(error: unknown): number | undefined {
  if (!(error instanceof TRPCClientError)) return undefined;
  return (error.data as Partial<AppErrorData> | undefined)?.retryAfter;
}

/** The wait a rate limit asks for, in seconds, minutes or hours, rounded up. */
function slowDownMessage(LL: TranslationFunctions, retryAfter: number | undefined): string {
  const seconds = Math.max(1, Math.ceil(retryAfter ?? 60));
  if (seconds < 60) return LL.create.slowSeconds({ seconds });
  const minutes = Math.ceil(seconds / 60);
  if (minutes < 60) return LL.create.slowMinutes({ minutes });
  return LL.create.slowHours({ hours: Math.ceil(minutes / 60) });
}

function problemMessage(LL: TranslationFunctions, problem: Problem): string {
  switch (problem.kind) {
    case "rejected":
      return LL.create.rejectedBody();
    case "required":
      return LL.create.emptyBody();
    case "drift_past_expiry":
      return LL.create.driftPastExpiry();
    default:
      return issueMessage(LL, problem);
  }
}

/** Looks the writer's country up on load, and once more after a pause when it is unknown. */
function useWriterCountry() {
  const geo = trpc.geo.me.useQuery(undefined, {
    retry: false,
    staleTime: Number.POSITIVE_INFINITY,
  });
  const [retried, setRetried] = useState(false);
  const unknown = geo.isError || (geo.isSuccess && !geo.data.countryCode);
  const { refetch } = geo;
  useEffect(() => {
    if (!unknown || retried) return;
    const timer = setTimeout(() => {
      setRetried(true);
      void refetch();
    }, LOCATION_RETRY_MS);
    return () => clearTimeout(timer);
  }, [unknown, retried, refetch]);
  return { pending: geo.isPending, code: geo.data?.countryCode ?? null };
}

export function CreatePage() {
  const { LL, locale, prefix } = useI18n();
  const navigate = useNavigate();
  const id = useId();
  const country = useWriterCountry();
  const [message, setMessage] = useState("");
  const [driftHours, setDriftHours] = useState(0);
  const [isPublic, setIsPublic] = useState(false);
  const [expiryDays, setExpiryDays] = useState<number>(DEFAULT_EXPIRY_DAYS);
  const [problems, setProblems] = useState<Problems>({});
  const [phase, setPhase] = useState<Phase>("idle");
  const [variant, setVariant] = useState<BottleVariant>("blue");
  const [focusRequest, setFocusRequest] = useState<FocusTarget | null>(null);
  const [now, setNow] = useState(Date.now);
  const send = trpc.bottles.throw.useMutation();
  const messageInput = useRef<HTMLTextAreaElement>(null);
  const driftThumb = useRef<HTMLSpanElement>(null);
  const submitButton = useRef<HTMLButtonElement>(null);
  const mounted = useRef(true);
  const timers = useRef(new Set<ReturnType<typeof setTimeout>>());

  useEffect(() => {
    mounted.current = true;
    const pending = timers.current;
    const tick = setInterval(() => setNow(Date.now()), CLOCK_TICK_MS);
    return () => {
      mounted.current = false;
      clearInterval(tick);
      for (const timer of pending) clearTimeout(timer);
      pending.clear();
    };
  }, []);

  const later = useCallback((run: () => void, ms: number) => {
    const timer = setTimeout(() => {
      timers.current.delete(timer);
      run();
    }, ms);
    timers.current.add(timer);
  }, []);

  const busy = phase !== "idle";

  // A disabled control cannot take focus, so focus moves once the form is enabled again.
  useEffect(() => {
    if (!focusRequest || busy) return;
    if (focusRequest === "message") messageInput.current?.focus();
    else if (focusRequest === "driftHours") driftThumb.current?.focus();
    else submitButton.current?.focus();
    setFocusRequest(null);
  }, [focusRequest, busy]);

  const showProblems = (found: Problems) => {
    setProblems(found);
    setFocusRequest(found.message ? "message" : found.driftHours ? "driftHours" : "submit");
  };

  const surfacesAt = now + driftHours * HOUR_MS;
  const expiresAt = expiryOf(now, expiryDays);
  // Checked as the writer moves the controls; the server checks again when it is thrown.
  const driftConflict = surfacesAt >= expiresAt;
  const driftProblem: Problem | undefined = driftConflict
    ? { field: "driftHours", kind: "drift_past_expiry" }
    : problems.driftHours;

  const onMessageChange = (value: string) => {
    setMessage(value);
    setProblems((current) => (current.message ? { ...current, message: undefined } : current));
  };

  const onDriftChange = (hours: number) => {
    setDriftHours(hours);
    setNow(Date.now());
    setProblems((current) =>
      current.driftHours ? { ...current, driftHours: undefined } : current,
    );
  };

  const onExpiryChange = (days: number) => {
    setExpiryDays(days);
    setNow(Date.now());
    setProblems((current) =>
      current.driftHours ? { ...current, driftHours: undefined } : current,
    );
  };

  const succeed = (hours: number) => {
    setVariant(bottleVariants[Math.floor(Math.random() * bottleVariants.length)] ?? "blue");
    setPhase("thrown");
    later(() => {
      toast.success(LL.create.driftingTitle(), {
        description: hours === 0 ? LL.create.driftingNow() : LL.create.driftingLater({ hours }),
      });
      later(() => {
        void navigate({ href: localizedPath(prefix, "discover") });
      }, REDIRECT_AFTER_TOAST_MS);
    }, THROW_ANIMATION_MS);
  };

  const fail = (error: unknown) => {
    // Whatever the writer typed stays; only the problem is shown.
    const code = appCodeOf(error);
    if (code === "CONTENT_REJECTED") {
      toast.error(LL.create.rejectedTitle(), {
        id: ERROR_TOAST_ID,
        description: LL.create.rejectedBody(),
      });
      showProblems({ message: { field: "message", kind: "rejected" } });
      return;
    }
    if (code === "RATE_LIMITED") {
      toast.error(LL.create.slowTitle(), {
        id: ERROR_TOAST_ID,
        description: slowDownMessage(LL, retryAfterOf(error)),
      });
      setFocusRequest("submit");
      return;
    }
    if (code === "INVALID_INPUT") {
      const issues = fieldIssuesOf(error);
      const found: Problems = {
        message: issues.find((issue) => issue.field === "message"),
        driftHours: issues.find((issue) => issue.field === "driftHours"),
      };
      const description = found.driftHours
        ? problemMessage(LL, found.driftHours)
        : errorMessage(LL, error);
      toast.error(LL.create.failedTitle(), { id: ERROR_TOAST_ID, description });
      showProblems(found);
      return;
    }
    toast.error(LL.create.failedTitle(), {
      id: ERROR_TOAST_ID,
      description: LL.create.failedBody(),
    });
    setFocusRequest("submit");
  };

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (busy) return;
    const parsed = createBottleInput.safeParse({
      message,
      driftHours,
      isPublic,
      expiryDays,
      timeZone: browserTimeZone(),
      locale,
    });
    if (!parsed.success) {
      const messageIssue = toFieldIssues(parsed.error.issues).find(
        (issue) => issue.field === "message",
      );
      if (messageIssue?.kind === "required") {
        toast.error(LL.create.emptyTitle(), {
          id: ERROR_TOAST_ID,
          description: LL.create.emptyBody(),
        });
      } else if (!messageIssue) {
        toast.error(LL.create.failedTitle(), {
          id: ERROR_TOAST_ID,
          description: LL.create.failedBody(),
        });
      }
      showProblems({ message: messageIssue });
      return;
    }
    const startedAt = Date.now();
    setNow(startedAt);
    if (startedAt + driftHours * HOUR_MS >= expiryOf(startedAt, expiryDays)) {
      showProblems({ driftHours: { field: "driftHours", kind: "drift_past_expiry" } });
      return;
    }
    setProblems({});
    toast.dismiss(ERROR_TOAST_ID);
    setPhase("sending");
    let failure: { error: unknown } | undefined;
    try {
      await send.mutateAsync(parsed.data);
    } catch (error) {
      failure = { error };
    }
    await wait(MIN_SENDING_MS - (Date.now() - startedAt));
    if (!mounted.current) return;
    if (failure === undefined) {
      succeed(parsed.data.driftHours);
      return;
    }
    setPhase("idle");
    fail(failure.error);
  };

  const messageId = `${id}-message`;
  const messageErrorId = `${id}-message-error`;
  const counterId = `${id}-counter`;
  const driftLabelId = `${id}-drift-label`;
  const driftHintId = `${id}-drift-hint`;
  const surfacesId = `${id}-surfaces`;
  const driftErrorId = `${id}-drift-error`;
  const expiryLabelId = `${id}-expiry-label`;
  const expiresId = `${id}-expires`;
  const publicId = `${id}-public`;
  const publicHintId = `${id}-public-hint`;

  const drift = driftLabels(LL, driftHours);
  const driftSpoken = drift.days ? `${drift.main} (${drift.days})` : drift.main;
  const describedBy = (...ids: Array<string | false | undefined>) =>
    ids.filter(Boolean).join(" ") || undefined;
  const countryCode = country.code;
  const limit = BOTTLE_LIMITS.message;

  return (
    <div className="container--narrow create">
      <PageIntro title={LL.create.title()}>{LL.create.subtitle()}</PageIntro>

      <form
        className="card create__form"
        noValidate
        onSubmit={onSubmit}
        aria-label={LL.create.formLabel()}
        aria-busy={phase === "sending"}
      >
        <section className="create__origin" aria-live="polite">
          <span className="flag-badge create__flag" aria-hidden="true">
            {country.pending ? "" : flagOf(countryCode)}
          </span>
          <div className="create__origin-text">
            <p className="create__origin-label">{LL.create.sendingFrom()}</p>
            <p className="create__origin-name" data-testid="writer-country">
              {country.pending ? LL.create.locating() : countryName(countryCode, locale)}
            </p>
          </div>
          <p className="create__origin-note">
            <Eye aria-hidden="true" />
            <span>{LL.create.countryNote()}</span>
          </p>
        </section>

        <div className="field">
          <label className="field__label" htmlFor={messageId}>
            {LL.create.message()}
          </label>
          <textarea
            id={messageId}
            ref={messageInput}
            name="message"
            className="field__input create__message"
            rows={7}
            value={message}
            onChange={(event) => onMessageChange(event.target.value)}
            disabled={busy}
            required
            maxLength={limit}
            autoComplete="off"
            placeholder={LL.create.messagePlaceholder()}
            aria-invalid={problems.message ? true : undefined}
            aria-describedby={describedBy(problems.message && messageErrorId, counterId)}
          />
          <div className="field__under">
            {problems.message ? (
              <p id={messageErrorId} className="field__error">
                {problemMessage(LL, problems.message)}
              </p>
            ) : (
              <span />
            )}
            <CharacterCount
              id={counterId}
              count={message.length}
              limit={limit}
              near={message.length >= limit * 0.9}
            />
          </div>
        </div>

        <div className="field create__drift">
          <div className="create__head">
            <span id={driftLabelId} className="field__label">
              {LL.create.drift()}
            </span>
            <span className="create__value" aria-hidden="true">
              {drift.main}
              {drift.days && <span className="create__value-days">{drift.days}</span>}
            </span>
          </div>
          <p id={driftHintId} className="field__hint">
            {LL.create.driftHint()}
          </p>
          <Slider.Root
            className="slider"
            min={0}
            max={BOTTLE_LIMITS.driftMaxHours}
            step={1}
            value={[driftHours]}
            onValueChange={([hours]) => onDriftChange(hours ?? 0)}
            disabled={busy}
            data-invalid={driftProblem ? "" : undefined}
          >
            <Slider.Track className="slider__track">
              <Slider.Range className="slider__range" />
            </Slider.Track>
            <Slider.Thumb
              ref={driftThumb}
              className="slider__thumb"
              aria-labelledby={driftLabelId}
              aria-valuetext={driftSpoken}
              aria-invalid={driftProblem ? true : undefined}
              aria-describedby={describedBy(driftHintId, surfacesId, driftProblem && driftErrorId)}
            />
          </Slider.Root>
          <div className="slider__scale" aria-hidden="true">
            <span>{LL.create.driftScaleStart()}</span>
            <span>{LL.create.driftScaleEnd()}</span>
          </div>
          <p id={surfacesId} className="field__hint">
            {driftHours === 0
              ? LL.create.surfacesNow()
              : LL.create.surfacesAt({ when: formatWhen(surfacesAt, locale) })}
          </p>
          <div aria-live="polite">
            {driftProblem && (
              <p id={driftErrorId} className="field__error create__conflict">
                {problemMessage(LL, driftProblem)}
              </p>
            )}
          </div>
        </div>

        <div className="create__options">
          <div className="field create__expiry">
            <span id={expiryLabelId} className="field__label">
              {LL.create.expiry()}
            </span>
            <RadioGroup.Root
              className="segmented"
              value={String(expiryDays)}
              onValueChange={(value) => onExpiryChange(Number(value))}
              orientation="horizontal"
              disabled={busy}
              aria-labelledby={expiryLabelId}
              aria-describedby={describedBy(expiresId, driftProblem && driftErrorId)}
            >
              {EXPIRY_DAY_OPTIONS.map((days) => (
                <RadioGroup.Item key={days} value={String(days)} className="segmented__item">
                  {LL.create.expiryOption({ days })}
                </RadioGroup.Item>
              ))}
            </RadioGroup.Root>
            <p id={expiresId} className="field__hint">
              {LL.create.expiresAt({ when: formatWhen(expiresAt, locale) })}
            </p>
          </div>

          <div className="create__public">
            <Checkbox.Root
              id={publicId}
              className="checkbox"
              checked={isPublic}
              onCheckedChange={(checked) => setIsPublic(checked === true)}
              disabled={busy}
              aria-describedby={publicHintId}
            >
              <Checkbox.Indicator className="checkbox__indicator">
                <Check aria-hidden="true" />
              </Checkbox.Indicator>
            </Checkbox.Root>
            <div>
              <label className="field__label" htmlFor={publicId}>
                {LL.create.isPublic()}
              </label>
              <p id={publicHintId} className="field__hint">
                {LL.create.isPublicHint()}
              </p>
            </div>
          </div>
        </div>

        <div className="create__actions">
          <button
            type="submit"
            ref={submitButton}
            className="button button--primary button--large create__submit"
            disabled={busy}
          >
            {phase === "sending" ? (
              <LoaderCircle aria-hidden="true" className="spinner" />
            ) : (
              <Send aria-hidden="true" />
            )}
            {phase === "sending" ? LL.create.throwing() : LL.create.throw()}
          </button>
        </div>

        <div role="status" className="visually-hidden">
          {phase === "sending" && LL.create.sendingStatus()}
          {phase === "thrown" && LL.create.thrownTitle()}
        </div>
      </form>

      {phase === "thrown" && (
        <ThrowScene
          variant={variant}
          title={LL.create.thrownTitle()}
          body={LL.create.thrownBody()}
        />
      )}
    </div>
  );
}

/** One period of the wave drawing is 360 units; the path holds four, the SVG shows two. */
const WAVE_PATH =
  "M0 24 Q90 0 180 24 T360 24 T540 24 T720 24 T900 24 T1080 24 T1260 24 T1440 24 V48 H0 Z";

function Wave({ className }: { className: string }) {
  return (
    <svg
      className={className}
      viewBox="0 0 1440 48"
      preserveAspectRatio="none"
      aria-hidden="true"
      focusable="false"
    >
      <path d={WAVE_PATH} />
    </svg>
  );
}

/** The bottle tossed into the waves after a successful throw (still when motion is reduced). */
function ThrowScene({
  variant,
  title,
  body,
}: {
  variant: BottleVariant;
  title: string;
  body: string;
}) {
  return (
    <div className="throw-scene" data-testid="throw-scene">
      <div className="throw-scene__stage" aria-hidden="true">
        <span className="throw-scene__moon" />
        <span className="throw-scene__splash" />
        <div className="throw-scene__drift">
          <div className="throw-scene__flight">
            <div className="throw-scene__arc">
              <Bottle variant={variant} className="throw-scene__bottle" />
            </div>
          </div>
        </div>
        <div className="throw-scene__sea">
          <Wave className="throw-scene__wave throw-scene__wave--back" />
          <Wave className="throw-scene__wave throw-scene__wave--front" />
        </div>
      </div>
      <p className="throw-scene__title">{title}</p>
      <p className="throw-scene__body">{body}</p>
    </div>
  );
}
