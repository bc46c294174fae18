import { Link, useLocation } from "@tanstack/react-router";
import { Menu, Waves, X } from "lucide-react";
import { useEffect, useId, useRef, useState } from "react";
import { localizedPath } from "../../common/locales.ts";
import { titleKeyOfSlug } from "../../common/page-meta.ts";
import { useI18n } from "../lib/i18n.tsx";
import { AccountMenu } from "./AccountMenu.tsx";
import { LanguageSwitcher } from "./LanguageSwitcher.tsx";

/** Scrolled past this, the header takes its background (at the top it lies on the page). */
const SCROLL_THRESHOLD_PX = 10;

/** The header's pages, each named in the dictionary as in page titles ("random-chat": randomChat). */
const navItems = (
  ["", "create", "discover", "my-bottles", "random-chat", "about", "faq"] as const
).map((slug) => ({ slug, key: titleKeyOfSlug[slug] }));

function useScrolled(): boolean {
  const [scrolled, setScrolled] = useState(false);
  useEffect(() => {
    const update = () => setScrolled(window.scrollY > SCROLL_THRESHOLD_PX);
    update();
    window.addEventListener("scroll", update, { passive: true });
    return () => window.removeEventListener("scroll", update);
  }, []);
  return scrolled;
}

export function Header() {
  const { LL, prefix } = useI18n();
  const { pathname } = useLocation();
  const scrolled = useScrolled();
  const [menuOpen, setMenuOpen] = useState(false);
  const menuId = useId();
  const toggleRef = useRef<HTMLButtonElement>(null);

  // The menu closes whenever the path changes.
  // biome-ignore lint/correctness/useExhaustiveDependencies: pathname is the trigger, not an input.
  useEffect(() => setMenuOpen(false), [pathname]);

  // Escape closes the open menu and hands focus back to its toggle.
  useEffect(() => {
    if (!menuOpen) return;
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== "Escape" || event.defaultPrevented) return;
      setMenuOpen(false);
      toggleRef.current?.focus();
    };
    document.addEventListener("keydown", onKeyDown);
    return () => document.removeEventListener("keydown", onKeyDown);
  }, [menuOpen]);

  const links = (className: string) =>
    navItems.map(({ slug, key }) => {
      const href = localizedPath(prefix, slug);
      const active = pathname === href;
      return (
        <li key={key}>
          <Link
            to={href}
            // Exact, so Home is not also marked on every page below it.
            activeOptions={{ exact: true }}
            className={active ? `${className} is-active` : className}
          >
            {LL.nav[key]()}
          </Link>
        </li>
      );
    });

  return (
    <header className={`site-header${scrolled || menuOpen ? " is-scrolled" : ""}`}>
      <div className="site-header__bar">
        <Link to={localizedPath(prefix, "")} className="brand">
          <Waves aria-hidden="true" className="brand__icon" />
          <span className="brand__name">Tidings</span>
        </Link>
        <nav aria-label={LL.nav.main()} className="site-nav">
          <ul className="site-nav__list">{links("site-nav__link")}</ul>
        </nav>
        <div className="site-header__tools">
          <AccountMenu />
          <LanguageSwitcher />
          <button
            ref={toggleRef}
            type="button"
            className="menu-toggle"
            aria-expanded={menuOpen}
            aria-controls={menuId}
            onClick={() => setMenuOpen((open) => !open)}
          >
            {menuOpen ? <X aria-hidden="true" /> : <Menu aria-hidden="true" />}
            <span className="visually-hidden">{LL.nav.menu()}</span>
          </button>
        </div>
      </div>
      <nav id={menuId} aria-label={LL.nav.menu()} className="mobile-nav" hidden={!menuOpen}>
        <ul className="mobile-nav__list">{links("mobile-nav__link")}</ul>
      </nav>
    </header>
  );
}
