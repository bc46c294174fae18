import { Cookie, RotateCcw } from "../icons.ts";
import { useI18n } from "../lib/i18n.tsx";
import "./CookiesBlockedNotice.css";

/**
 * Says, where a page needs the visitor cookie, that the browser refuses it and what to do:
 * without it the page's action would fail later with no reason given, or not at all. `reload`
 * adds the button for pages that must load again once cookies are allowed.
 */
export function CookiesBlockedNotice({ body, reload }: { body: string; reload?: boolean }) {
  const { LL } = useI18n();
  const t = LL.common.cookies;
  return (
    <div className="cookies-blocked" role="status">
      <Cookie aria-hidden="true" className="cookies-blocked__icon" />
      <div className="cookies-blocked__text">
        <p className="cookies-blocked__title">{t.title()}</p>
        <p>{body}</p>
        {reload && (
          <button
            type="button"
            className="button button--ghost cookies-blocked__reload"
            onClick={() => location.reload()}
          >
            <RotateCcw aria-hidden="true" />
            {LL.common.reload()}
          </button>
        )}
      </div>
    </div>
  );
}
