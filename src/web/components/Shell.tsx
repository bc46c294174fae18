import { Outlet, useLocation, useRouter } from "@tanstack/react-router";
import { useEffect } from "react";
import { Toaster } from "sonner";
import { resolvePath, splitPrefix } from "../../common/locales.ts";
import { aboutMeta, type TitleKey, titleKeyOfSlug } from "../../common/page-meta.ts";
import { useAccountFromOtherTabs } from "../lib/account.ts";
import { requestHeadingFocus } from "../lib/focus.ts";
import { LocaleProvider, useI18n } from "../lib/i18n.tsx";
import { Footer } from "./Footer.tsx";
import { Header } from "./Header.tsx";
import { FoundNotice } from "./my-bottles/FoundNotice.tsx";
import { OfflineNotice } from "./OfflineNotice.tsx";

/** Toasts keep this far from the bottom edge (and from the right on wide screens). */
const TOAST_OFFSET_PX = 20;

/** Every page: header, content, footer, toasts, in the language of its prefix. */
export function Shell() {
  const { pathname } = useLocation();
  const router = useRouter();
  // A navigation that leaves focus nowhere (its link went with the old page) hands it to the
  // new page's heading.
  useEffect(() => router.subscribe("onBeforeNavigate", () => requestHeadingFocus(false)), [router]);
  useAccountFromOtherTabs();
  return (
    <LocaleProvider prefix={splitPrefix(pathname).prefix}>
      <DocumentLanguage pathname={pathname} />
      <a className="skip-link" href="#main">
        <SkipText />
      </a>
      <Header />
      <OfflineNotice />
      <main id="main" className="page" tabIndex={-1}>
        <Outlet />
      </main>
      <Footer />
      <Toasts />
      <FoundNotice />
    </LocaleProvider>
  );
}

/**
 * Toasts at the bottom (right on wide screens, full width on phones): never over a page's
 * title, which sits at the top, nor over the header's menus.
 */
function Toasts() {
  const { LL } = useI18n();
  return (
    <Toaster
      position="bottom-right"
      offset={{ bottom: TOAST_OFFSET_PX, right: TOAST_OFFSET_PX }}
      mobileOffset={{ bottom: TOAST_OFFSET_PX }}
      richColors
      closeButton
      theme="dark"
      customAriaLabel={LL.common.notifications()}
      toastOptions={{ closeButtonAriaLabel: LL.common.closeNotification() }}
    />
  );
}

function SkipText() {
  const { LL } = useI18n();
  return <>{LL.nav.skipToContent()}</>;
}

/** Keeps <html lang> and the title in step with client-side navigation. */
function DocumentLanguage({ pathname }: { pathname: string }) {
  const { LL, locale } = useI18n();
  useEffect(() => {
    document.documentElement.lang = locale;
    const resolution = resolvePath(pathname);
    let key: TitleKey = "notFound";
    if (resolution.kind === "page") key = titleKeyOfSlug[resolution.slug];
    if (resolution.kind === "auth") key = "auth";
    const isAbout = resolution.kind === "page" && resolution.slug === "about";
    document.title = isAbout ? aboutMeta.title : LL.meta.titles[key]();
  }, [LL, locale, pathname]);
  return null;
}
