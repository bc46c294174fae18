import { Link, useLocation, useRouter } from "@tanstack/react-router";
import { useEffect } from "react";
import { notFoundSuggestion } from "../../common/locales.ts";
import { PageHeading } from "../components/PageIntro.tsx";
import { PageLink } from "../components/PageLink.tsx";
import { ArrowLeft, House } from "../icons.ts";
import { useI18n } from "../lib/i18n.tsx";
import { around } from "../lib/placeholder.ts";

export function NotFoundPage() {
  const { LL, prefix } = useI18n();
  const { pathname } = useLocation();
  const router = useRouter();
  const suggestion = notFoundSuggestion(pathname, prefix);
  const [before, after] = around((path) => LL.notFound.suggestion({ path }));

  useEffect(() => {
    console.warn(`404: no page at ${pathname}`);
  }, [pathname]);

  return (
    <div className="container not-found">
      <p className="not-found__code" aria-hidden="true">
        {LL.notFound.code()}
      </p>
      <PageHeading className="not-found__title">{LL.notFound.title()}</PageHeading>
      <p className="not-found__body">{LL.notFound.body()}</p>
      {suggestion && (
        <p className="not-found__suggestion">
          {before}
          <Link to={suggestion}>{suggestion}</Link>
          {after}
        </p>
      )}
      <div className="button-row">
        <PageLink to="" icon={House} className="button button--primary">
          {LL.common.returnHome()}
        </PageLink>
        <button
          type="button"
          className="button button--ghost"
          onClick={() => router.history.back()}
        >
          <ArrowLeft aria-hidden="true" />
          {LL.common.goBack()}
        </button>
      </div>
    </div>
  );
}
