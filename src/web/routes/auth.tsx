import { useLocation, useNavigate } from "@tanstack/react-router";
import {
  KeyRound,
  LoaderCircle,
  LogIn,
  LogOut,
  MonitorSmartphone,
  Trash2,
  TriangleAlert,
  UserPlus,
  UserRound,
} from "lucide-react";
import { AlertDialog, Tabs } from "radix-ui";
import {
  type ChangeEvent,
  type FormEvent,
  type ReactNode,
  type RefObject,
  useEffect,
  useId,
  useRef,
  useState,
} from "react";
import { toast } from "sonner";
import type { TranslationFunctions } from "../../../i18n/i18n-types";
import {
  type AccountUser,
  AUTH_LIMITS,
  changePasswordInput,
  deleteAccountInput,
  safeRedirect,
  signInInput,
  signUpInput,
} from "../../common/auth.ts";
import { type FieldIssue, toFieldIssues } from "../../common/errors.ts";
import { localizedPath } from "../../common/locales.ts";
import { PageIntro } from "../components/PageIntro.tsx";
import { useAccount, useLeaveAccount, useSetAccountUser } from "../lib/account.ts";
import {
  appCodeOf,
  type ClientIssue,
  errorMessage,
  fieldIssuesOf,
  issueMessage,
} from "../lib/errors.ts";
import { useI18n } from "../lib/i18n.tsx";
import { trpc } from "../lib/trpc.ts";
import "../components/dialog.css";
import "./auth.css";

type Issue = FieldIssue | ClientIssue;
type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** Where to go after signing in: the same-site page named by `redirect`, else home. */
function returnTarget(searchStr: string, home: string): string {
  const wanted = safeRedirect(new URLSearchParams(searchStr).get("redirect"));
  if (!wanted || /^\/auth(?:[?#]|$)/.test(wanted)) return home;
  return wanted;
}

function blank<F extends string>(fields: ReadonlyArray<F>): Record<F, string> {
  const out = {} as Record<F, string>;
  for (const field of fields) out[field] = "";
  return out;
}

/**
 * What every form on this page shares, after the contact form: values that survive failures,
 * the first problem of each field, a form-wide alert, a busy state that disables the inputs, and
 * focus moved to the first invalid field once the inputs are enabled again.
 */
function useForm<F extends string>(fields: ReadonlyArray<F>, locked = false) {
  const id = useId();
  const [values, setValues] = useState<Record<F, string>>(() => blank(fields));
  const [issues, setIssues] = useState<Partial<Record<F, Issue>>>({});
  const [alert, setAlert] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const [focusRequest, setFocusRequest] = useState<F | "submit" | null>(null);
  const inputs = useRef<Partial<Record<F, HTMLInputElement | null>>>({});
  const submitRef = useRef<HTMLButtonElement>(null);
  const mounted = useRef(true);
  const busy = pending || locked;

  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);

  // A disabled control cannot take focus, so this waits until the form is enabled again.
  useEffect(() => {
    if (!focusRequest || busy) return;
    if (focusRequest === "submit") submitRef.current?.focus();
    else inputs.current[focusRequest]?.focus();
    setFocusRequest(null);
  }, [focusRequest, busy]);

  const isField = (name: string): name is F => (fields as ReadonlyArray<string>).includes(name);

  const onChange = (event: ChangeEvent<HTMLInputElement>) => {
    const { name, value } = event.target;
    if (!isField(name)) return;
    setValues((current) => ({ ...current, [name]: value }));
    setIssues((current) => (current[name] ? { ...current, [name]: undefined } : current));
  };

  /** Shows the problems (and an alert); focus goes to `focus`, else the first invalid field. */
  const show = (list: ReadonlyArray<Issue>, alertText: string | null = null, focus?: F) => {
    const found: Partial<Record<F, Issue>> = {};
    for (const issue of list) {
      const field = issue.field;
      if (isField(field) && !found[field]) found[field] = issue;
    }
    setIssues(found);
    setAlert(alertText);
    setFocusRequest(focus ?? fields.find((field) => found[field]) ?? "submit");
  };

  /** Runs a request with the form busy; undefined when the form is gone by the time it ends. */
  const run = async <T,>(request: () => Promise<T>): Promise<Outcome<T> | undefined> => {
    setIssues({});
    setAlert(null);
    setPending(true);
    let outcome: Outcome<T>;
    try {
      outcome = { ok: true, value: await request() };
    } catch (error) {
      outcome = { ok: false, error };
    }
    if (!mounted.current) return undefined;
    setPending(false);
    return outcome;
  };

  const clear = (...names: F[]) =>
    setValues((current) => {
      const next = { ...current };
      for (const name of names) next[name] = "";
      return next;
    });

  return {
    id,
    alertId: `${id}-alert`,
    fields,
    values,
    issues,
    alert,
    busy,
    inputs,
    submitRef,
    onChange,
    show,
    run,
    clear,
    requestFocus: setFocusRequest,
  };
}

type Form<F extends string> = ReturnType<typeof useForm<F>>;

/** A labelled input with its hint and its error, wired for assistive technology. */
function Field<F extends string>({
  form,
  name,
  label,
  hint,
  type,
  autoComplete,
  maxLength,
  alertDescribes = false,
}: {
  form: Form<F>;
  name: F;
  label: string;
  hint?: string;
  type: "text" | "password";
  autoComplete: "username" | "current-password" | "new-password";
  maxLength: number;
  /** Whether the form-wide alert, when shown, is about this field too. */
  alertDescribes?: boolean;
}) {
  const { LL } = useI18n();
  const inputId = `${form.id}-${name}`;
  const hintId = `${inputId}-hint`;
  const errorId = `${inputId}-error`;
  const issue = form.issues[name];
  const alertId = alertDescribes && form.alert ? form.alertId : undefined;
  const describedBy =
    [issue ? errorId : undefined, alertId, hint ? hintId : undefined].filter(Boolean).join(" ") ||
    undefined;
  const textProps =
    type === "text"
      ? { autoCapitalize: "none", autoCorrect: "off", spellCheck: false as const }
      : undefined;
  return (
    <div className="field">
      <label className="field__label" htmlFor={inputId}>
        {label}
      </label>
      <input
        id={inputId}
        name={name}
        type={type}
        autoComplete={autoComplete}
        value={form.values[name]}
        onChange={form.onChange}
        required
        disabled={form.busy}
        maxLength={maxLength}
        aria-invalid={issue ? true : undefined}
        aria-describedby={describedBy}
        className="field__input"
        ref={(element) => {
          form.inputs.current[name] = element;
        }}
        {...textProps}
      />
      {issue && (
        <p id={errorId} className="field__error">
          {issueMessage(LL, issue)}
        </p>
      )}
      {hint && (
        <p id={hintId} className="field__hint">
          {hint}
        </p>
      )}
    </div>
  );
}

/** The form-wide problem (wrong credentials, too many attempts, no connection). */
function FormAlert({ id, text }: { id: string; text: string | null }) {
  return (
    <div role="alert" className="auth__alert-region">
      {text && (
        <p id={id} className="auth__alert">
          <TriangleAlert aria-hidden="true" />
          <span>{text}</span>
        </p>
      )}
    </div>
  );
}

function SubmitButton({
  busy,
  label,
  busyLabel,
  icon,
  buttonRef,
  className = "button button--primary auth-form__submit",
}: {
  busy: boolean;
  label: string;
  busyLabel: string;
  icon: ReactNode;
  buttonRef: RefObject<HTMLButtonElement | null>;
  className?: string;
}) {
  return (
    <button type="submit" ref={buttonRef} className={className} disabled={busy}>
      {busy ? <LoaderCircle aria-hidden="true" className="spinner" /> : icon}
      {busy ? busyLabel : label}
    </button>
  );
}

/** Field problems the server named, or else one alert saying what went wrong. */
function showFailure<F extends string>(form: Form<F>, LL: TranslationFunctions, error: unknown) {
  const issues = fieldIssuesOf(error).filter((issue) =>
    (form.fields as ReadonlyArray<string>).includes(issue.field),
  );
  if (issues.length > 0) form.show(issues);
  else form.show([], errorMessage(LL, error));
}

// ——— Signed out: sign in or create an account ———

type Arrive = (user: AccountUser, message: string) => void;

function SignInForm({ arriving, onArrive }: { arriving: boolean; onArrive: Arrive }) {
  const { LL } = useI18n();
  const form = useForm(["username", "password"] as const, arriving);
  const signIn = trpc.auth.signIn.useMutation();

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (form.busy) return;
    const parsed = signInInput.safeParse(form.values);
    if (!parsed.success) {
      form.show(toFieldIssues(parsed.error.issues));
      return;
    }
    const outcome = await form.run(() => signIn.mutateAsync(parsed.data));
    if (!outcome) return;
    if (outcome.ok) {
      onArrive(outcome.value.user, LL.auth.signedIn({ username: outcome.value.user.username }));
      return;
    }
    if (appCodeOf(outcome.error) === "INVALID_CREDENTIALS") {
      // The password is known to be wrong and cannot be seen to find the typo: it is cleared
      // for a fresh try; the username stays.
      form.clear("password");
      form.show([], LL.errors.invalidCredentials(), "password");
      return;
    }
    showFailure(form, LL, outcome.error);
  };

  return (
    <form className="card auth-form" noValidate onSubmit={onSubmit} aria-busy={form.busy}>
      <Field
        form={form}
        name="username"
        label={LL.auth.username()}
        type="text"
        autoComplete="username"
        maxLength={AUTH_LIMITS.usernameMax}
      />
      <Field
        form={form}
        name="password"
        label={LL.auth.password()}
        type="password"
        autoComplete="current-password"
        maxLength={AUTH_LIMITS.passwordMax}
        alertDescribes
      />
      <FormAlert id={form.alertId} text={form.alert} />
      <SubmitButton
        busy={form.busy}
        label={LL.auth.signIn()}
        busyLabel={LL.auth.signingIn()}
        icon={<LogIn aria-hidden="true" />}
        buttonRef={form.submitRef}
      />
    </form>
  );
}

function SignUpForm({ arriving, onArrive }: { arriving: boolean; onArrive: Arrive }) {
  const { LL } = useI18n();
  const form = useForm(["username", "password", "confirm"] as const, arriving);
  const signUp = trpc.auth.signUp.useMutation();

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (form.busy) return;
    const { username, password, confirm } = form.values;
    const parsed = signUpInput.safeParse({ username, password });
    const issues: Issue[] = parsed.success ? [] : toFieldIssues(parsed.error.issues);
    if (confirm === "") issues.push({ field: "confirm", kind: "required" });
    else if (confirm !== password) issues.push({ field: "confirm", kind: "passwords_mismatch" });
    if (!parsed.success || issues.length > 0) {
      form.show(issues);
      return;
    }
    const input = parsed.data;
    const outcome = await form.run(() => signUp.mutateAsync(input));
    if (!outcome) return;
    if (outcome.ok) {
      onArrive(outcome.value.user, LL.auth.signedUp({ username: outcome.value.user.username }));
      return;
    }
    showFailure(form, LL, outcome.error);
  };

  return (
    <form className="card auth-form" noValidate onSubmit={onSubmit} aria-busy={form.busy}>
      <Field
        form={form}
        name="username"
        label={LL.auth.username()}
        hint={LL.auth.usernameHint()}
        type="text"
        autoComplete="username"
        maxLength={AUTH_LIMITS.usernameMax}
      />
      <Field
        form={form}
        name="password"
        label={LL.auth.password()}
        hint={LL.auth.passwordHint()}
        type="password"
        autoComplete="new-password"
        maxLength={AUTH_LIMITS.passwordMax}
      />
      <Field
        form={form}
        name="confirm"
        label={LL.auth.confirmPassword()}
        type="password"
        autoComplete="new-password"
        maxLength={AUTH_LIMITS.passwordMax}
      />
      <FormAlert id={form.alertId} text={form.alert} />
      <SubmitButton
        busy={form.busy}
        label={LL.auth.signUp()}
        busyLabel={LL.auth.signingUp()}
        icon={<UserPlus aria-hidden="true" />}
        buttonRef={form.submitRef}
      />
    </form>
  );
}

type Tab = "signIn" | "signUp";

function SignedOut({ arriving, onArrive }: { arriving: boolean; onArrive: Arrive }) {
  const { LL } = useI18n();
  const [tab, setTab] = useState<Tab>("signIn");
  return (
    <div className="auth">
      <PageIntro title={LL.auth.title()}>{LL.auth.subtitle()}</PageIntro>
      <Tabs.Root
        value={tab}
        onValueChange={(value) => setTab(value === "signUp" ? "signUp" : "signIn")}
      >
        <Tabs.List className="auth-tabs" aria-label={LL.auth.tabsLabel()}>
          <Tabs.Trigger value="signIn" className="auth-tabs__tab" disabled={arriving}>
            {LL.auth.signInTab()}
          </Tabs.Trigger>
          <Tabs.Trigger value="signUp" className="auth-tabs__tab" disabled={arriving}>
            {LL.auth.signUpTab()}
          </Tabs.Trigger>
        </Tabs.List>
        {/* Both stay mounted, so switching tabs never loses what was typed. */}
        <Tabs.Content value="signIn" forceMount className="auth-tabs__panel">
          <SignInForm arriving={arriving} onArrive={onArrive} />
        </Tabs.Content>
        <Tabs.Content value="signUp" forceMount className="auth-tabs__panel">
          <SignUpForm arriving={arriving} onArrive={onArrive} />
        </Tabs.Content>
      </Tabs.Root>
    </div>
  );
}

// ——— Signed in: the account ———

/** A request that needs a session found none (it expired, or was ended elsewhere). */
function useSessionLost() {
  const { LL } = useI18n();
  const setAccountUser = useSetAccountUser();
  return (error: unknown): boolean => {
    if (appCodeOf(error) !== "UNAUTHORIZED") return false;
    toast.error(LL.errors.unauthorized());
    void setAccountUser(null);
    return true;
  };
}

/** Lets password managers know whose password a form is about. */
function HiddenUsername({ username }: { username: string }) {
  return (
    <input
      type="text"
      name="username"
      autoComplete="username"
      value={username}
      readOnly
      hidden
      tabIndex={-1}
    />
  );
}

function ChangePasswordForm({ user }: { user: AccountUser }) {
  const { LL } = useI18n();
  const form = useForm(["currentPassword", "newPassword", "confirm"] as const);
  const change = trpc.auth.changePassword.useMutation();
  const sessionLost = useSessionLost();
  const titleId = `${form.id}-title`;

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (form.busy) return;
    const { currentPassword, newPassword, confirm } = form.values;
    const parsed = changePasswordInput.safeParse({ currentPassword, newPassword });
    const issues: Issue[] = parsed.success ? [] : toFieldIssues(parsed.error.issues);
    if (newPassword !== "" && newPassword.trim().toLowerCase() === user.username.toLowerCase()) {
      issues.push({ field: "newPassword", kind: "password_is_username" });
    }
    if (confirm === "") issues.push({ field: "confirm", kind: "required" });
    else if (confirm !== newPassword) issues.push({ field: "confirm", kind: "passwords_mismatch" });
    if (!parsed.success || issues.length > 0) {
      form.show(issues);
      return;
    }
    const input = parsed.data;
    const outcome = await form.run(() => change.mutateAsync(input));
    if (!outcome) return;
    if (outcome.ok) {
      form.clear("currentPassword", "newPassword", "confirm");
      form.requestFocus("submit");
      toast.success(LL.auth.passwordChanged(), { description: LL.auth.passwordChangedBody() });
      return;
    }
    if (sessionLost(outcome.error)) return;
    if (appCodeOf(outcome.error) === "INVALID_CREDENTIALS") {
      form.clear("currentPassword");
      form.show([{ field: "currentPassword", kind: "wrong_password" }]);
      return;
    }
    showFailure(form, LL, outcome.error);
  };

  return (
    <section className="card auth-section" aria-labelledby={titleId}>
      <h2 id={titleId} className="auth-section__title">
        <KeyRound aria-hidden="true" />
        {LL.auth.changePasswordTitle()}
      </h2>
      <p className="auth-section__lead">{LL.auth.changePasswordLead()}</p>
      <form noValidate onSubmit={onSubmit} aria-labelledby={titleId} aria-busy={form.busy}>
        <HiddenUsername username={user.username} />
        <Field
          form={form}
          name="currentPassword"
          label={LL.auth.currentPassword()}
          type="password"
          autoComplete="current-password"
          maxLength={AUTH_LIMITS.passwordMax}
        />
        <Field
          form={form}
          name="newPassword"
          label={LL.auth.newPassword()}
          hint={LL.auth.passwordHint()}
          type="password"
          autoComplete="new-password"
          maxLength={AUTH_LIMITS.passwordMax}
        />
        <Field
          form={form}
          name="confirm"
          label={LL.auth.confirmNewPassword()}
          type="password"
          autoComplete="new-password"
          maxLength={AUTH_LIMITS.passwordMax}
        />
        <FormAlert id={form.alertId} text={form.alert} />
        <div className="auth-section__actions">
          <SubmitButton
            busy={form.busy}
            label={LL.auth.changePassword()}
            busyLabel={LL.auth.changingPassword()}
            icon={<KeyRound aria-hidden="true" />}
            buttonRef={form.submitRef}
            className="button button--primary"
          />
        </div>
      </form>
    </section>
  );
}

function DeleteAccountForm({
  user,
  onBusy,
}: {
  user: AccountUser;
  onBusy: (busy: boolean) => void;
}) {
  const { LL } = useI18n();
  const form = useForm(["password"] as const);
  const remove = trpc.auth.deleteAccount.useMutation();
  const sessionLost = useSessionLost();
  const leave = useLeaveAccount();
  const [leaving, setLeaving] = useState(false);
  const busy = form.busy || leaving;

  useEffect(() => onBusy(busy), [busy, onBusy]);

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (busy) return;
    const parsed = deleteAccountInput.safeParse(form.values);
    if (!parsed.success) {
      form.show(toFieldIssues(parsed.error.issues));
      return;
    }
    const input = parsed.data;
    const outcome = await form.run(() => remove.mutateAsync(input));
    if (!outcome) return;
    if (outcome.ok) {
      setLeaving(true);
      await leave(LL.auth.deleted());
      return;
    }
    if (sessionLost(outcome.error)) return;
    if (appCodeOf(outcome.error) === "INVALID_CREDENTIALS") {
      form.clear("password");
      form.show([{ field: "password", kind: "wrong_password" }]);
      return;
    }
    showFailure(form, LL, outcome.error);
  };

  return (
    <form noValidate onSubmit={onSubmit} aria-busy={busy}>
      <HiddenUsername username={user.username} />
      <Field
        form={form}
        name="password"
        label={LL.auth.password()}
        type="password"
        autoComplete="current-password"
        maxLength={AUTH_LIMITS.passwordMax}
      />
      <FormAlert id={form.alertId} text={form.alert} />
      <div className="dialog__actions">
        <AlertDialog.Cancel className="button button--ghost" disabled={busy}>
          {LL.auth.cancel()}
        </AlertDialog.Cancel>
        <SubmitButton
          busy={busy}
          label={LL.auth.deleteConfirm()}
          busyLabel={LL.auth.deleting()}
          icon={<Trash2 aria-hidden="true" />}
          buttonRef={form.submitRef}
          className="button auth__danger"
        />
      </div>
    </form>
  );
}

function DeleteAccount({ user }: { user: AccountUser }) {
  const { LL } = useI18n();
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const titleId = useId();
  return (
    <section className="card auth-section auth-section--danger" aria-labelledby={titleId}>
      <h2 id={titleId} className="auth-section__title">
        <Trash2 aria-hidden="true" />
        {LL.auth.deleteTitle()}
      </h2>
      <p className="auth-section__lead">{LL.auth.deleteLead()}</p>
      <AlertDialog.Root
        open={open}
        onOpenChange={(next) => {
          // A deletion under way is not abandoned halfway.
          if (!busy) setOpen(next);
        }}
      >
        <div className="auth-section__actions">
          <AlertDialog.Trigger className="button auth__danger-outline">
            <Trash2 aria-hidden="true" />
            {LL.auth.deleteOpen()}
          </AlertDialog.Trigger>
        </div>
        <AlertDialog.Portal>
          <AlertDialog.Overlay className="dialog-overlay" />
          <AlertDialog.Content
            className="dialog"
            onOpenAutoFocus={(event) => {
              // The password is what is needed next, not the cancel button.
              const content = event.currentTarget;
              const field =
                content instanceof HTMLElement
                  ? content.querySelector<HTMLInputElement>('input[type="password"]')
                  : null;
              if (field) {
                event.preventDefault();
                field.focus();
              }
            }}
          >
            <div className="dialog__icon dialog__icon--danger" aria-hidden="true">
              <TriangleAlert />
            </div>
            <AlertDialog.Title className="dialog__title">
              {LL.auth.deleteConfirmTitle()}
            </AlertDialog.Title>
            <AlertDialog.Description className="dialog__body">
              {LL.auth.deleteConfirmBody()}
            </AlertDialog.Description>
            <DeleteAccountForm user={user} onBusy={setBusy} />
          </AlertDialog.Content>
        </AlertDialog.Portal>
      </AlertDialog.Root>
    </section>
  );
}

function SignOutEverywhere() {
  const { LL } = useI18n();
  const titleId = useId();
  const signOutEverywhere = trpc.auth.signOutEverywhere.useMutation();
  const sessionLost = useSessionLost();
  const leave = useLeaveAccount();
  const [leaving, setLeaving] = useState(false);
  const busy = signOutEverywhere.isPending || leaving;

  const onClick = async () => {
    if (busy) return;
    try {
      await signOutEverywhere.mutateAsync();
    } catch (error) {
      if (!sessionLost(error)) toast.error(errorMessage(LL, error));
      return;
    }
    setLeaving(true);
    await leave(LL.auth.signedOutEverywhere());
  };

  return (
    <section className="card auth-section" aria-labelledby={titleId}>
      <h2 id={titleId} className="auth-section__title">
        <MonitorSmartphone aria-hidden="true" />
        {LL.auth.everywhereTitle()}
      </h2>
      <p className="auth-section__lead">{LL.auth.everywhereLead()}</p>
      <div className="auth-section__actions">
        <button
          type="button"
          className="button button--ghost"
          disabled={busy}
          onClick={() => void onClick()}
        >
          {busy ? (
            <LoaderCircle aria-hidden="true" className="spinner" />
          ) : (
            <LogOut aria-hidden="true" />
          )}
          {busy ? LL.auth.signingOut() : LL.auth.signOutEverywhere()}
        </button>
      </div>
    </section>
  );
}

function SignedIn({ user }: { user: AccountUser }) {
  const { LL } = useI18n();
  const signOut = trpc.auth.signOut.useMutation();
  const leave = useLeaveAccount();
  const [leaving, setLeaving] = useState(false);
  const busy = signOut.isPending || leaving;

  const onSignOut = async () => {
    if (busy) return;
    try {
      await signOut.mutateAsync();
    } catch (error) {
      toast.error(errorMessage(LL, error));
      return;
    }
    setLeaving(true);
    await leave(LL.auth.signedOut());
  };

  return (
    <div className="auth auth--account">
      <PageIntro title={LL.auth.accountTitle()}>{LL.auth.accountSubtitle()}</PageIntro>
      <section className="card auth-who">
        <span className="auth-who__avatar" aria-hidden="true">
          <UserRound />
        </span>
        <p className="auth-who__text">
          <span className="auth-who__hint">{LL.auth.signedInAs()}</span>
          <strong className="auth-who__name">{user.username}</strong>
        </p>
        <button
          type="button"
          className="button button--ghost auth-who__signout"
          disabled={busy}
          onClick={() => void onSignOut()}
        >
          {busy ? (
            <LoaderCircle aria-hidden="true" className="spinner" />
          ) : (
            <LogOut aria-hidden="true" />
          )}
          {busy ? LL.auth.signingOut() : LL.auth.signOut()}
        </button>
      </section>
      <ChangePasswordForm user={user} />
      <SignOutEverywhere />
      <DeleteAccount user={user} />
    </div>
  );
}

export function AuthPage() {
  const { LL, prefix } = useI18n();
  const { user, pending } = useAccount();
  const { searchStr } = useLocation();
  const navigate = useNavigate();
  const setAccountUser = useSetAccountUser();
  // Set once signed in here: the form stays (disabled) until the next page is shown, rather than
  // the account settings flashing up on the way out.
  const [arriving, setArriving] = useState(false);

  const onArrive: Arrive = (arrived, message) => {
    setArriving(true);
    const target = returnTarget(searchStr, localizedPath(prefix, ""));
    void setAccountUser(arrived);
    void navigate({ href: target, replace: true }).then(() => toast.success(message));
  };

  if (pending) {
    return (
      <div className="auth">
        <PageIntro title={LL.auth.title()} />
        <p className="auth__loading" role="status">
          <LoaderCircle aria-hidden="true" className="spinner" />
          {LL.common.loading()}
        </p>
      </div>
    );
  }
  if (user && !arriving) return <SignedIn user={user} />;
  return <SignedOut arriving={arriving} onArrive={onArrive} />;
}
