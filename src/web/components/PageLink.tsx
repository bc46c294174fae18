import { Link } from "@tanstack/react-router";
import type { ReactNode } from "react";
import { localizedPath, type PageSlug, type Prefix } from "../../common/locales.ts";
import type { LucideIcon } from "../icons.ts";
import { useI18n } from "../lib/i18n.tsx";

/**
 * A link to one of the site's pages, in the page's language unless `prefix` says otherwise,
 * with an icon before its words (most are drawn as buttons).
 */
export function PageLink({
  to,
  icon: Icon,
  className,
  prefix,
  onClick,
  children,
}: {
  to: PageSlug;
  icon: LucideIcon;
  className: string;
  prefix?: Prefix;
  onClick?: () => void;
  children: ReactNode;
}) {
  const { prefix: current } = useI18n();
  return (
    <Link to={localizedPath(prefix ?? current, to)} className={className} onClick={onClick}>
      <Icon aria-hidden="true" />
      {children}
    </Link>
  );
}
