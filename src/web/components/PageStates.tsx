import type { ErrorComponentProps } from "@tanstack/react-router";
import { House, LoaderCircle, TriangleAlert } from "../icons.ts";
import { useI18n } from "../lib/i18n.tsx";
import { PageHeading } from "./PageIntro.tsx";
import { PageLink } from "./PageLink.tsx";
import { ReloadButton } from "./ReloadButton.tsx";

/**
 * In place of a page whose script is still on its way after a second: a slow connection, or none
 * (the site then says it is waiting, and the page follows when the device is back).
 */
export function PagePending() {
  const { LL } = useI18n();
  return (
    <div className="container page-state" role="status">
      <LoaderCircle aria-hidden="true" className="spinner page-state__icon" />
      <p>{LL.common.loading()}</p>
    </div>
  );
}

/**
 * In place of a page that could not be shown (its script failed to arrive after the one reload
 * that fetches a newer build's, or it broke while drawing), in the page's language: the router's
 * own is in English, with the error's text.
 */
export function PageFailed(_: ErrorComponentProps) {
  const { LL } = useI18n();
  const t = LL.common.pageFailed;
  return (
    <div className="container page-state">
      <TriangleAlert aria-hidden="true" className="page-state__icon is-failed" />
      <PageHeading className="page-state__title">{t.title()}</PageHeading>
      <p>{t.body()}</p>
      <div className="button-row">
        <ReloadButton className="button button--primary" />
        <PageLink to="" icon={House} className="button button--ghost">
          {LL.common.returnHome()}
        </PageLink>
      </div>
    </div>
  );
}
