import { toast } from "sonner";
import { type AccountUser, changePasswordInput } from "../../../common/auth.ts";
import { KeyRound } from "../../icons.ts";
import { useI18n } from "../../lib/i18n.tsx";
import { trpc } from "../../lib/trpc.ts";
import { SubmitRow } from "../form/FormParts.tsx";
import { SchemaForm, TextFields } from "../form/SchemaForm.tsx";
import { useSchemaForm } from "../form/useSchemaForm.ts";
import { AccountSection } from "./AccountSection.tsx";
import { confirmIssues, passwordField, schemaIssues, useAccountFailure } from "./account-forms.ts";
import { HiddenUsername } from "./HiddenUsername.tsx";

const fields = ["currentPassword", "newPassword", "confirm"] as const;

/** A new password, after the current one; the other devices are signed out (by the server). */
export function ChangePasswordForm({ user }: { user: AccountUser }) {
  const { LL } = useI18n();
  const t = LL.auth;
  const change = trpc.auth.changePassword.useMutation();
  const failed = useAccountFailure<(typeof fields)[number]>("currentPassword");
  const { form, state } = useSchemaForm({
    defaultValues: { currentPassword: "", newPassword: "", confirm: "" },
    fields,
    check: ({ currentPassword, newPassword, confirm }) => [
      ...schemaIssues(changePasswordInput.safeParse({ currentPassword, newPassword })),
      // The server's rule, known here too: a password may not be the username.
      ...(newPassword !== "" && newPassword.trim().toLowerCase() === user.username.toLowerCase()
        ? [{ field: "newPassword", kind: "password_is_username" } as const]
        : []),
      ...confirmIssues(newPassword, confirm),
    ],
    send: ({ currentPassword, newPassword }) =>
      change.mutateAsync(changePasswordInput.parse({ currentPassword, newPassword })),
    onSent: (_, controls) => {
      controls.clear(...fields);
      controls.focus("submit");
      toast.success(t.passwordChanged(), { description: t.passwordChangedBody() });
    },
    onFailed: failed,
  });
  const titleId = `${state.id}-title`;

  return (
    <AccountSection
      titleId={titleId}
      icon={KeyRound}
      title={t.changePasswordTitle()}
      lead={t.changePasswordLead()}
    >
      <SchemaForm form={form} state={state} labelledBy={titleId}>
        <HiddenUsername username={user.username} />
        <TextFields
          form={form}
          fields={[
            passwordField("currentPassword", t.currentPassword(), "current-password"),
            passwordField("newPassword", t.newPassword(), "new-password", {
              hint: t.passwordHint(),
            }),
            passwordField("confirm", t.confirmNewPassword(), "new-password"),
          ]}
        />
        <form.FormAlert />
        <SubmitRow labels={[t.changePassword(), t.changingPassword()]} icon={KeyRound} />
      </SchemaForm>
    </AccountSection>
  );
}
