import { Cookie } from "../icons.ts";
import { useI18n } from "../lib/i18n.tsx";
import { ReloadButton } from "./ReloadButton.tsx";

/**
 * Says, where a page needs the visitor cookie, that the browser refuses it and what to do:
 * without it the page's action would fail later with no reason given, or not at all. `reload`
 * adds the button for pages that must load again once cookies are allowed.
 */
export function CookiesBlockedNotice({ body, reload }: { body: string; reload?: boolean }) {
  const { LL } = useI18n();
  const t = LL.common.cookies;
  return (
    <div className="page-notice" role="status">
      <Cookie aria-hidden="true" />
      <div>
        <p className="page-notice__title">{t.title()}</p>
        <p>{body}</p>
        {reload && <ReloadButton className="button button--ghost page-notice__action" />}
      </div>
    </div>
  );
}
