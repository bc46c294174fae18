import { ArrowLeft } from "../../icons.ts";
import { useI18n } from "../../lib/i18n.tsx";
import { PageLink } from "../PageLink.tsx";

/** The chat page's way back: a link to the home page of the current language. */
export function BackHome({ className = "random-chat__back" }: { className?: string }) {
  const { LL } = useI18n();
  return (
    <PageLink to="" icon={ArrowLeft} className={className}>
      {LL.randomChat.back()}
    </PageLink>
  );
}
