import { useNavigate } from "@tanstack/react-router";
import { useCallback, useEffect, useRef, useState } from "react";
import { toast } from "sonner";
import { BOTTLE_LIMITS } from "../../common/bottles.ts";
import { localizedPath } from "../../common/locales.ts";
import { type BottleVariant, bottleVariants } from "../components/Bottle.tsx";
import { CookiesBlockedNotice } from "../components/CookiesBlockedNotice.tsx";
import { BottleAgeGate } from "../components/create/BottleAgeGate.tsx";
import { ExpiryField, PublicField } from "../components/create/BottleOptions.tsx";
import { expiresBeforeSurfacing, expiryOf } from "../components/create/bottle-time.ts";
import { DriftField } from "../components/create/DriftField.tsx";
import { ThrowScene } from "../components/create/ThrowScene.tsx";
import { useThrowForm } from "../components/create/useThrowForm.ts";
import { WriterOrigin } from "../components/create/WriterOrigin.tsx";
import { SubmitRow } from "../components/form/FormParts.tsx";
import { SchemaForm, TextFields, textField } from "../components/form/SchemaForm.tsx";
import { useStartFindsClock } from "../components/my-bottles/FoundNotice.tsx";
import { PageIntro } from "../components/PageIntro.tsx";
import { ToastLink } from "../components/ToastLink.tsx";
import { Send } from "../icons.ts";
import { useCookiesBlocked } from "../lib/cookies.ts";
import { useI18n } from "../lib/i18n.tsx";
import "./create.css";

/** The success animation plays this long before the toast… */
const THROW_ANIMATION_MS = 3000;
/** …and after the toast, this long until the discover page. */
const REDIRECT_AFTER_TOAST_MS = 500;
/** How often the surfacing and expiry times on screen are brought up to date. */
const CLOCK_TICK_MS = 30_000;
/** The counter is marked once this share of the limit is used. */
const NEAR_LIMIT = 0.9;

/** Timers that end with the page. */
function useLater() {
  const timers = useRef(new Set<ReturnType<typeof setTimeout>>());
  useEffect(() => {
    const pending = timers.current;
    return () => {
      for (const timer of pending) clearTimeout(timer);
      pending.clear();
    };
  }, []);
  return useCallback((run: () => void, ms: number) => {
    const timer = setTimeout(() => {
      timers.current.delete(timer);
      run();
    }, ms);
    timers.current.add(timer);
  }, []);
}

/** The "drifting" toast after a throw (its link dismisses it). */
const DRIFTING_TOAST_ID = "bottle-drifting";

/** Write a message: where it sets out from, the message, its drift, expiry and public choice. */
export function CreatePage() {
  const { LL, prefix } = useI18n();
  const t = LL.create;
  const navigate = useNavigate();
  const later = useLater();
  const [thrown, setThrown] = useState<BottleVariant>();
  const startFindsClock = useStartFindsClock();
  const cookiesBlocked = useCookiesBlocked();

  // After the throw: the animation, then the toast, then the discover page.
  const onThrown = (hours: number) => {
    setThrown(bottleVariants[Math.floor(Math.random() * bottleVariants.length)] ?? "blue");
    startFindsClock();
    later(() => {
      toast.success(t.driftingTitle(), {
        description: (
          <>
            {hours === 0 ? t.driftingNow() : t.driftingLater({ hours })}{" "}
            <ToastLink to={localizedPath(prefix, "my-bottles")} toastId={DRIFTING_TOAST_ID}>
              {LL.myBottles.followLink()}
            </ToastLink>
          </>
        ),
        // Long enough to follow the link after the page has moved on to discover.
        duration: 8000,
        id: DRIFTING_TOAST_ID,
      });
      later(
        () => void navigate({ href: localizedPath(prefix, "discover") }),
        REDIRECT_AFTER_TOAST_MS,
      );
    }, THROW_ANIMATION_MS);
  };
  const { form, state, busy, age, values, driftError, driftPastExpiry, powWorking } = useThrowForm(
    thrown !== undefined,
    onThrown,
  );

  // The surfacing and expiry times follow the clock, and the controls as they move.
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    const tick = setInterval(() => setNow(Date.now()), CLOCK_TICK_MS);
    return () => clearInterval(tick);
  }, []);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a moved control restarts the clock.
  useEffect(() => setNow(Date.now()), [values.driftHours, values.expiryDays]);

  // Checked as the writer moves the controls; the server checks again when it is thrown.
  const conflict = expiresBeforeSurfacing(now, values.driftHours, values.expiryDays);
  const driftProblem = conflict ? driftPastExpiry : driftError;
  const limit = BOTTLE_LIMITS.message;
  const messageField = textField("message", t.message(), limit, {
    rows: 7,
    placeholder: t.messagePlaceholder(),
    counter: { near: values.message.length >= limit * NEAR_LIMIT },
    className: "create__message",
  });

  return (
    <div className="container--narrow create">
      <PageIntro title={t.title()}>{t.subtitle()}</PageIntro>
      {cookiesBlocked && <CookiesBlockedNotice body={LL.common.cookies.create()} />}
      <BottleAgeGate gate={age} />

      <SchemaForm form={form} state={state} className="card create__form" label={t.formLabel()}>
        <WriterOrigin />
        <TextFields form={form} fields={[messageField]} />
        <form.AppField name="driftHours">
          {() => <DriftField now={now} problem={driftProblem} />}
        </form.AppField>
        <div className="create__options">
          <form.AppField
            name="expiryDays"
            listeners={{
              // A new expiry may settle the drift's problem; the live check decides again.
              onChange: () =>
                form.setFieldMeta("driftHours", (meta) => ({ ...meta, errorMap: {} })),
            }}
          >
            {() => (
              <ExpiryField
                expiresAt={expiryOf(now, values.expiryDays)}
                conflictId={driftProblem ? `${state.id}-drift-error` : undefined}
              />
            )}
          </form.AppField>
          <form.AppField name="isPublic">{() => <PublicField />}</form.AppField>
        </div>
        <SubmitRow
          labels={[t.throw(), powWorking ? LL.pow.working() : t.throwing()]}
          icon={Send}
          large
        />
        <div role="status" className="visually-hidden">
          {busy && !thrown && (powWorking ? LL.pow.workingLabel() : t.sendingStatus())}
          {thrown && t.thrownTitle()}
        </div>
      </SchemaForm>

      {thrown && <ThrowScene variant={thrown} title={t.thrownTitle()} body={t.thrownBody()} />}
    </div>
  );
}
