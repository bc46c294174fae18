import { Link, useLocation, useNavigate } from "@tanstack/react-router";
import { LogIn, LogOut, UserRound } from "lucide-react";
import { DropdownMenu } from "radix-ui";
import { toast } from "sonner";
import { signInSearch, useAccount, useLeaveAccount } from "../lib/account.ts";
import { errorMessage } from "../lib/errors.ts";
import { useI18n } from "../lib/i18n.tsx";
import { trpc } from "../lib/trpc.ts";
import "./AccountMenu.css";

/** The header's account control: a sign-in link, or the username with a small menu. */
export function AccountMenu() {
  const { LL } = useI18n();
  const { user, pending } = useAccount();
  const { pathname, searchStr } = useLocation();
  const navigate = useNavigate();
  const leave = useLeaveAccount();
  const signOut = trpc.auth.signOut.useMutation();

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

  const onSignOut = async () => {
    try {
      await signOut.mutateAsync();
    } catch (error) {
      toast.error(errorMessage(LL, error));
      return;
    }
    await leave(LL.auth.signedOut());
  };

  return (
    <DropdownMenu.Root>
      <DropdownMenu.Trigger
        className="account-trigger"
        aria-label={LL.auth.accountMenu({ username: user.username })}
      >
        <UserRound aria-hidden="true" />
        <span className="account-trigger__label account-trigger__name">{user.username}</span>
      </DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content className="menu account-menu" align="end" sideOffset={8}>
          <DropdownMenu.Label className="account-menu__label">
            <span className="account-menu__hint">{LL.auth.signedInAs()}</span>
            <span className="account-menu__name">{user.username}</span>
          </DropdownMenu.Label>
          <DropdownMenu.Separator className="account-menu__separator" />
          <DropdownMenu.Item className="menu__item" onSelect={() => void navigate({ to: "/auth" })}>
            <span>{LL.auth.account()}</span>
            <UserRound aria-hidden="true" className="account-menu__icon" />
          </DropdownMenu.Item>
          <DropdownMenu.Item
            className="menu__item"
            disabled={signOut.isPending}
            onSelect={() => void onSignOut()}
          >
            <span>{signOut.isPending ? LL.auth.signingOut() : LL.auth.signOut()}</span>
            <LogOut aria-hidden="true" className="account-menu__icon" />
          </DropdownMenu.Item>
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}
