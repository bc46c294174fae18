import { AlertDialog } from "radix-ui";
import { useEffect, useState } from "react";
import { type AccountUser, deleteAccountInput } from "../../../common/auth.ts";
import { Trash2, TriangleAlert } from "../../icons.ts";
import { useLeaveAccount } from "../../lib/account.ts";
import { useI18n } from "../../lib/i18n.tsx";
import { trpc } from "../../lib/trpc.ts";
import { DialogActions } from "../form/FormParts.tsx";
import { SchemaForm, TextFields } from "../form/SchemaForm.tsx";
import { useSchemaForm } from "../form/useSchemaForm.ts";
import { AccountSection } from "./AccountSection.tsx";
import { passwordField, schemaIssues, useAccountFailure } from "./account-forms.ts";
import { HiddenUsername } from "./HiddenUsername.tsx";
import "../dialog.css";

/** The password that confirms a deletion; busy from sending until the visitor has left. */
function DeleteAccountForm({
  user,
  onBusy,
}: {
  user: AccountUser;
  onBusy: (busy: boolean) => void;
}) {
  const { LL } = useI18n();
  const t = LL.auth;
  const remove = trpc.auth.deleteAccount.useMutation();
  const leave = useLeaveAccount();
  const [leaving, setLeaving] = useState(false);
  const failed = useAccountFailure<"password">("password");
  const { form, state, busy } = useSchemaForm({
    defaultValues: { password: "" },
    fields: ["password"],
    check: (values) => schemaIssues(deleteAccountInput.safeParse(values)),
    send: (values) => remove.mutateAsync(deleteAccountInput.parse(values)),
    onSent: () => {
      setLeaving(true);
      void leave(t.deleted());
    },
    onFailed: failed,
    locked: leaving,
  });
  useEffect(() => onBusy(busy), [busy, onBusy]);

  return (
    <SchemaForm form={form} state={state}>
      <HiddenUsername username={user.username} />
      <TextFields
        form={form}
        fields={[passwordField("password", t.password(), "current-password")]}
      />
      <form.FormAlert />
      <DialogActions
        close={AlertDialog.Cancel}
        labels={[t.deleteConfirm(), t.deleting()]}
        icon={Trash2}
      />
    </SchemaForm>
  );
}

/** Deleting the account: a warning, then the password in a dialog. */
export function DeleteAccount({ user }: { user: AccountUser }) {
  const { LL } = useI18n();
  const t = LL.auth;
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  return (
    <AccountSection icon={Trash2} title={t.deleteTitle()} lead={t.deleteLead()} danger>
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
            {t.deleteOpen()}
          </AlertDialog.Trigger>
        </div>
        <AlertDialog.Portal>
          <AlertDialog.Overlay className="dialog-overlay" />
          <AlertDialog.Content
            className="dialog delete-dialog"
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
              {t.deleteConfirmTitle()}
            </AlertDialog.Title>
            <AlertDialog.Description className="dialog__body">
              {t.deleteConfirmBody()}
            </AlertDialog.Description>
            <DeleteAccountForm user={user} onBusy={setBusy} />
          </AlertDialog.Content>
        </AlertDialog.Portal>
      </AlertDialog.Root>
    </AccountSection>
  );
}
