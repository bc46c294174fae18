import { Link, useLocation } from "@tanstack/react-router";
import { LogIn } from "../icons.ts";
import { signInSearch, useAccount } from "../lib/account.ts";
import { useI18n } from "../lib/i18n.tsx";
import { AccountTriggerContent } from "./AccountTrigger.tsx";
import { DeferredMenu } from "./DeferredMenu.tsx";
import "./AccountMenu.css";

const loadAccountDropdown = () => import("./AccountDropdown.tsx").then((m) => m.AccountDropdown);

/** The header's account control: a sign-in link, or the username with a small menu. */
export function AccountMenu() {
  const { LL } = useI18n();
  const { user, pending } = useAccount();
  const { pathname, searchStr } = useLocation();

  if (pending) {
    // Holds the place of the sign-in link so the header does not shift when the answer comes.
    return <span className="account-trigger account-trigger--placeholder" aria-hidden="true" />;
  }

  if (!user) {
    return (
      <Link to="/auth" search={signInSearch(pathname, searchStr)} className="account-trigger">
        <LogIn aria-hidden="true" />
        <span className="account-trigger__label">{LL.nav.signIn()}</span>
      </Link>
    );
  }

  return (
    <DeferredMenu
      load={loadAccountDropdown}
      className="account-trigger"
      label={LL.auth.accountMenu({ username: user.username })}
    >
      <AccountTriggerContent username={user.username} />
    </DeferredMenu>
  );
}
