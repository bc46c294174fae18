import { UserRound } from "../icons.ts";

/** What the account trigger shows, the same before and after the menu's code arrives. */
export function AccountTriggerContent({ username }: { username: string }) {
  return (
    <>
      <UserRound aria-hidden="true" />
      <span className="account-trigger__label account-trigger__name">{username}</span>
    </>
  );
}
