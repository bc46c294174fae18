import { useNavigate } from "@tanstack/react-router";
import { LogOut, UserRound } from "lucide-react";
import { DropdownMenu } from "radix-ui";
import { toast } from "sonner";
import { useAccount, useLeaveAccount } from "../lib/account.ts";
import { errorMessage } from "../lib/errors.ts";
import { useI18n } from "../lib/i18n.tsx";
import { trpc } from "../lib/trpc.ts";
import { AccountTriggerContent } from "./AccountMenu.tsx";

/** The signed-in visitor's menu: their account page and signing out. */
export function AccountDropdown({ defaultOpen }: { defaultOpen: boolean }) {
  const { LL } = useI18n();
  const { user } = useAccount();
  const navigate = useNavigate();
  const leave = useLeaveAccount();
  const signOut = trpc.auth.signOut.useMutation();
  if (!user) return null;

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
    <DropdownMenu.Root defaultOpen={defaultOpen}>
      <DropdownMenu.Trigger
        className="account-trigger"
        aria-label={LL.auth.accountMenu({ username: user.username })}
      >
        <AccountTriggerContent username={user.username} />
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
