import { Link } from "@tanstack/react-router";
import { ArrowLeft } from "lucide-react";
import { localizedPath } from "../../../common/locales.ts";
import { useI18n } from "../../lib/i18n.tsx";

/** The spec's back link to the home page of the current language. */
export function BackHome({ className = "random-chat__back" }: { className?: string }) {
  const { LL, prefix } = useI18n();
  return (
    <Link to={localizedPath(prefix, "")} className={className}>
      <ArrowLeft aria-hidden="true" />
      {LL.randomChat.back()}
    </Link>
  );
}
