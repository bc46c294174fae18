import { Link, useLocation } from "@tanstack/react-router";
import { useEffect, useId, useRef, useState } from "react";
import { localizedPath } from "../../common/locales.ts";
import { titleKeyOfSlug } from "../../common/page-meta.ts";
import { Menu, Waves, X } from "../icons.ts";
import { requestHeadingFocus } from "../lib/focus.ts";
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
    // The first look waits for the next frame: read now, the scroll position would make the
    // browser lay out the page just drawn in the middle of drawing it.
    const first = requestAnimationFrame(update);
    window.addEventListener("scroll", update, { passive: true });
    return () => {
      cancelAnimationFrame(first);
      window.removeEventListener("scroll", update);
    };
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
  const menuRef = useRef<HTMLElement>(null);

  // The menu closes whenever the path changes.
  // biome-ignore lint/correctness/useExhaustiveDependencies: pathname is the trigger, not an input.
  useEffect(() => setMenuOpen(false), [pathname]);

  // The open menu holds the focus as a dialog does: Tab goes round its toggle and its links, the
  // page under it is out of reach (inert), and Escape closes it, handing focus to the toggle.
  useEffect(() => {
    if (!menuOpen) return;
    const under = [document.getElementById("main"), document.querySelector(".site-footer")];
    for (const part of under) part?.setAttribute("inert", "");
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.defaultPrevented) return;
      if (event.key === "Escape") {
        setMenuOpen(false);
        toggleRef.current?.focus();
        return;
      }
      if (event.key !== "Tab") return;
      const links = Array.from(menuRef.current?.querySelectorAll<HTMLElement>("a[href]") ?? []);
      const round = [toggleRef.current, ...links].filter((e): e is HTMLElement => e !== null);
      const first = round[0];
      const last = round.at(-1);
      const at = round.indexOf(document.activeElement as HTMLElement);
      if (
        at === -1 ||
        (event.shiftKey && at === 0) ||
        (!event.shiftKey && at === round.length - 1)
      ) {
        event.preventDefault();
        (event.shiftKey ? last : first)?.focus();
      }
    };
    document.addEventListener("keydown", onKeyDown);
    return () => {
      document.removeEventListener("keydown", onKeyDown);
      for (const part of under) part?.removeAttribute("inert");
    };
  }, [menuOpen]);

  const links = (className: string, onFollow?: (active: boolean) => void) =>
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
            onClick={onFollow && (() => onFollow(active))}
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
      <nav
        ref={menuRef}
        id={menuId}
        aria-label={LL.nav.menu()}
        className="mobile-nav"
        hidden={!menuOpen}
      >
        {/* The link followed goes with the menu: the new page's heading takes the focus. */}
        <ul className="mobile-nav__list">
          {links("mobile-nav__link", (active) => {
            setMenuOpen(false);
            if (!active) requestHeadingFocus(true);
            else document.querySelector<HTMLElement>("#main h1")?.focus();
          })}
        </ul>
      </nav>
    </header>
  );
}
