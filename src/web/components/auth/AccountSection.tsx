import { type ReactNode, useId } from "react";
import type { LucideIcon } from "../../icons.ts";

/** One part of the account page: a card with its icon and title, a lead line, and its controls. */
export function AccountSection({
  titleId,
  icon: Icon,
  title,
  lead,
  danger = false,
  children,
}: {
  /** The title's id, when something else is named by it too; one is made otherwise. */
  titleId?: string;
  icon: LucideIcon;
  title: string;
  lead: string;
  /** Deleting the account: the card is drawn in red. */
  danger?: boolean;
  children: ReactNode;
}) {
  const ownId = useId();
  const id = titleId ?? ownId;
  return (
    <section
      className={danger ? "card auth-section auth-section--danger" : "card auth-section"}
      aria-labelledby={id}
    >
      <h2 id={id} className="auth-section__title">
        <Icon aria-hidden="true" />
        {title}
      </h2>
      <p className="auth-section__lead">{lead}</p>
      {children}
    </section>
  );
}
