import { useNavigate } from "@tanstack/react-router";
import { DropdownMenu } from "radix-ui";
import { localizedPath } from "../../common/locales.ts";
import { LogOut, ShieldCheck, UserRound } from "../icons.ts";
import { useAccount, useSignOut } from "../lib/account.ts";
import { useI18n } from "../lib/i18n.tsx";
import { useMenuContainer } from "../lib/menu-container.ts";
import { AccountTriggerContent } from "./AccountTrigger.tsx";

/** The signed-in visitor's menu: their account page and signing out. */
export function AccountDropdown({ defaultOpen }: { defaultOpen: boolean }) {
  const { LL, prefix } = useI18n();
  const { user, isOperator } = useAccount();
  const navigate = useNavigate();
  const { busy, signOut } = useSignOut();
  const [menuTrigger, menuContainer] = useMenuContainer();
  if (!user) return null;

  return (
    <DropdownMenu.Root defaultOpen={defaultOpen} modal={false}>
      <DropdownMenu.Trigger
        ref={menuTrigger}
        className="account-trigger"
        aria-label={LL.auth.accountMenu({ username: user.username })}
      >
        <AccountTriggerContent username={user.username} />
      </DropdownMenu.Trigger>
      <DropdownMenu.Portal container={menuContainer}>
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
          {isOperator && (
            <DropdownMenu.Item
              className="menu__item"
              onSelect={() => void navigate({ href: localizedPath(prefix, "moderation") })}
            >
              <span>{LL.moderation.title()}</span>
              <ShieldCheck aria-hidden="true" className="account-menu__icon" />
            </DropdownMenu.Item>
          )}
          <DropdownMenu.Item className="menu__item" disabled={busy} onSelect={() => void signOut()}>
            <span>{busy ? LL.auth.signingOut() : LL.auth.signOut()}</span>
            <LogOut aria-hidden="true" className="account-menu__icon" />
          </DropdownMenu.Item>
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}
