import { Tabs } from "radix-ui";
import { useState } from "react";
import { type AccountUser, AUTH_LIMITS, signInInput, signUpInput } from "../../../common/auth.ts";
import { LogIn, type LucideIcon, UserPlus } from "../../icons.ts";
import { CookiesBlocked, requireCookies, useCookiesBlocked } from "../../lib/cookies.ts";
import { appCodeOf } from "../../lib/errors.ts";
import { useI18n } from "../../lib/i18n.tsx";
import { usePow } from "../../lib/pow.ts";
import { trpc } from "../../lib/trpc.ts";
import { CookiesBlockedNotice } from "../CookiesBlockedNotice.tsx";
import type { FormState } from "../form/context.ts";
import { FormAlert, SubmitButton } from "../form/FormParts.tsx";
import { SchemaForm, type SchemaFormApi, TextFields, textField } from "../form/SchemaForm.tsx";
import type { TextFieldProps } from "../form/TextField.tsx";
import { useSchemaForm } from "../form/useSchemaForm.ts";
import { PageIntro } from "../PageIntro.tsx";
import { confirmIssues, passwordField, schemaIssues, useAccountFailure } from "./account-forms.ts";

/** Signed in or up: who, and the words of the welcome toast. */
export type Arrive = (user: AccountUser, message: string) => void;

/** A username and passwords in a card, the form-wide alert, and the button. */
function CredentialsForm<F extends string>({
  form,
  state,
  fields,
  labels,
  icon,
}: {
  form: SchemaFormApi<F>;
  state: FormState;
  fields: ReadonlyArray<TextFieldProps & { name: F }>;
  labels: readonly [string, string];
  icon: LucideIcon;
}) {
  return (
    <SchemaForm form={form} state={state} className="card auth-form">
      <TextFields form={form} fields={fields} />
      <FormAlert />
      <SubmitButton
        labels={labels}
        icon={icon}
        className="button button--primary auth-form__submit"
      />
    </SchemaForm>
  );
}

function SignInForm({ arriving, onArrive }: { arriving: boolean; onArrive: Arrive }) {
  const { LL } = useI18n();
  const t = LL.auth;
  const signIn = trpc.auth.signIn.useMutation();
  const pow = usePow("signIn");
  const failed = useAccountFailure<"username" | "password">();
  const kit = useSchemaForm({
    defaultValues: { username: "", password: "" },
    fields: ["username", "password"],
    check: (values) => schemaIssues(signInInput.safeParse(values)),
    send: async (values) => {
      requireCookies();
      const input = signInInput.parse(values);
      // None is asked for until sign-ins from here have failed; then one is solved and sent.
      return pow.run((solution) => signIn.mutateAsync({ ...input, pow: solution }), "none");
    },
    onSent: ({ user }) => onArrive(user, t.signedIn({ username: user.username })),
    onFailed: (error, controls) => {
      if (error instanceof CookiesBlocked || appCodeOf(error) !== "INVALID_CREDENTIALS") {
        return failed(error, controls);
      }
      // The password is known to be wrong and cannot be seen to find the typo: it is cleared
      // for a fresh try; the username stays.
      controls.clear("password");
      controls.show([], LL.errors.invalidCredentials(), "password");
    },
    locked: arriving,
  });
  const fields = [
    textField("username", t.username(), AUTH_LIMITS.usernameMax, { autoComplete: "username" }),
    passwordField("password", t.password(), "current-password", { alertDescribes: true }),
  ];
  return (
    <CredentialsForm
      {...kit}
      fields={fields}
      labels={[t.signIn(), pow.working ? LL.pow.working() : t.signingIn()]}
      icon={LogIn}
    />
  );
}

function SignUpForm({ arriving, onArrive }: { arriving: boolean; onArrive: Arrive }) {
  const { LL } = useI18n();
  const t = LL.auth;
  const signUp = trpc.auth.signUp.useMutation();
  const pow = usePow("signUp");
  const kit = useSchemaForm({
    defaultValues: { username: "", password: "", confirm: "" },
    fields: ["username", "password", "confirm"],
    check: ({ username, password, confirm }) => [
      ...schemaIssues(signUpInput.safeParse({ username, password })),
      ...confirmIssues(password, confirm),
    ],
    send: async ({ username, password }) => {
      requireCookies();
      const input = signUpInput.parse({ username, password });
      return pow.run((solution) => signUp.mutateAsync({ ...input, pow: solution }));
    },
    onSent: ({ user }) => onArrive(user, t.signedUp({ username: user.username })),
    onFailed: useAccountFailure(),
    locked: arriving,
  });
  const hint = t.usernameHint();
  const fields = [
    textField("username", t.username(), AUTH_LIMITS.usernameMax, {
      autoComplete: "username",
      hint,
    }),
    passwordField("password", t.password(), "new-password", { hint: t.passwordHint() }),
    passwordField("confirm", t.confirmPassword(), "new-password"),
  ];
  return (
    <CredentialsForm
      {...kit}
      fields={fields}
      labels={[t.signUp(), pow.working ? LL.pow.working() : t.signingUp()]}
      icon={UserPlus}
    />
  );
}

/** Sign in or create an account, in two tabs that both keep what was typed. */
export function SignedOut({ arriving, onArrive }: { arriving: boolean; onArrive: Arrive }) {
  const { LL } = useI18n();
  const [tab, setTab] = useState<"signIn" | "signUp">("signIn");
  const blocked = useCookiesBlocked();
  return (
    <div className="auth">
      {/* The heading names the tab in use: "Create account" is not signing in. */}
      <PageIntro title={tab === "signUp" ? LL.auth.signUpTab() : LL.auth.title()}>
        {LL.auth.subtitle()}
      </PageIntro>
      {blocked && <CookiesBlockedNotice body={LL.common.cookies.account()} />}
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
