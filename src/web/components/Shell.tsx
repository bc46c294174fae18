import { Outlet, useLocation } from "@tanstack/react-router";
import { useEffect } from "react";
import { Toaster } from "sonner";
import { resolvePath, splitPrefix } from "../../common/locales.ts";
import { aboutMeta, type TitleKey, titleKeyOfSlug } from "../../common/page-meta.ts";
import { LocaleProvider, useI18n } from "../lib/i18n.tsx";
import { Footer } from "./Footer.tsx";
import { Header } from "./Header.tsx";

/** The header is 64 px high; toasts start just under it. */
const TOAST_TOP_PX = 72;

/** Every page: header, content, footer, toasts, in the language of its prefix. */
export function Shell() {
  const { pathname } = useLocation();
  return (
    <LocaleProvider prefix={splitPrefix(pathname).prefix}>
      <DocumentLanguage pathname={pathname} />
      <a className="skip-link" href="#main">
        <SkipText />
      </a>
      <Header />
      <main id="main" className="page" tabIndex={-1}>
        <Outlet />
      </main>
      <Footer />
      {/* Toasts sit below the fixed header, so they never cover its menu and account buttons. */}
      <Toaster
        position="top-center"
        offset={{ top: TOAST_TOP_PX }}
        mobileOffset={{ top: TOAST_TOP_PX }}
        richColors
        closeButton
        theme="dark"
      />
    </LocaleProvider>
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
