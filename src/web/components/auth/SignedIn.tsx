import type { AccountUser } from "../../../common/auth.ts";
import { LoaderCircle, LogOut, MonitorSmartphone, UserRound } from "../../icons.ts";
import { useSignOut } from "../../lib/account.ts";
import { useI18n } from "../../lib/i18n.tsx";
import { PageIntro } from "../PageIntro.tsx";
import { AccountSection } from "./AccountSection.tsx";
import { ChangePasswordForm } from "./ChangePasswordForm.tsx";
import { DeleteAccount } from "./DeleteAccount.tsx";

/** A sign-out button: a spinner and "Signing out…" until the visitor has left. */
function SignOutButton({ everywhere, className }: { everywhere: boolean; className: string }) {
  const { LL } = useI18n();
  const { busy, signOut } = useSignOut(everywhere);
  return (
    <button type="button" className={className} disabled={busy} onClick={() => void signOut()}>
      {busy ? (
        <LoaderCircle aria-hidden="true" className="spinner" />
      ) : (
        <LogOut aria-hidden="true" />
      )}
      {busy ? LL.auth.signingOut() : everywhere ? LL.auth.signOutEverywhere() : LL.auth.signOut()}
    </button>
  );
}

/** The account page: who is signed in, a new password, signing out everywhere, deletion. */
export function SignedIn({ user }: { user: AccountUser }) {
  const { LL } = useI18n();
  const t = LL.auth;
  return (
    <div className="auth auth--account">
      <PageIntro title={t.accountTitle()}>{t.accountSubtitle()}</PageIntro>
      <section className="card auth-who">
        <span className="auth-who__avatar" aria-hidden="true">
          <UserRound />
        </span>
        <p className="auth-who__text">
          <span className="auth-who__hint">{t.signedInAs()}</span>
          <strong className="auth-who__name">{user.username}</strong>
        </p>
        <SignOutButton everywhere={false} className="button button--ghost auth-who__signout" />
      </section>
      <ChangePasswordForm user={user} />
      <AccountSection
        icon={MonitorSmartphone}
        title={t.everywhereTitle()}
        lead={t.everywhereLead()}
      >
        <div className="auth-section__actions">
          <SignOutButton everywhere className="button button--ghost" />
        </div>
      </AccountSection>
      <DeleteAccount user={user} />
    </div>
  );
}
