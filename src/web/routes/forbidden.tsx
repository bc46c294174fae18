import { Link, useLocation } from "@tanstack/react-router";
import { PageHeading } from "../components/PageIntro.tsx";
import { PageLink } from "../components/PageLink.tsx";
import { House, LogIn } from "../icons.ts";
import { signInSearch, useAccount } from "../lib/account.ts";
import { useI18n } from "../lib/i18n.tsx";

/**
 * 403: a page that exists but is not for this visitor (the server answered 403 too). A visitor
 * who is not signed in is offered the sign-in page, which brings them back here.
 */
export function ForbiddenPage() {
  const { LL } = useI18n();
  const t = LL.forbidden;
  const { user } = useAccount();
  const { pathname, searchStr } = useLocation();
  return (
    <div className="container not-found forbidden">
      <p className="not-found__code" aria-hidden="true">
        {t.code()}
      </p>
      <PageHeading className="not-found__title">{t.title()}</PageHeading>
      <p className="not-found__body">{t.body()}</p>
      <div className="button-row">
        <PageLink to="" icon={House} className="button button--primary">
          {LL.common.returnHome()}
        </PageLink>
        {!user && (
          <Link
            to="/auth"
            search={signInSearch(pathname, searchStr)}
            className="button button--ghost"
          >
            <LogIn aria-hidden="true" />
            {LL.nav.signIn()}
          </Link>
        )}
      </div>
    </div>
  );
}
