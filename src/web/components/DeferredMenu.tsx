import { type ComponentType, type ReactNode, useState } from "react";

/** What a deferred menu module draws once loaded: Radix's menu, opened if it was asked to. */
export type MenuComponent = ComponentType<{ defaultOpen: boolean }>;

const loaded = new Map<() => Promise<MenuComponent>, MenuComponent>();

/**
 * A header menu whose code (Radix's menu with its positioning and focus handling, a quarter of
 * the first page load) arrives when a visitor reaches for it: hovering or focusing the trigger
 * fetches it, and a click or key press opens it as soon as it is there. Until then the trigger
 * is a plain button that looks and reads the same.
 */
export function DeferredMenu({
  load,
  className,
  label,
  children,
}: {
  /** Must be the same function on every render: it keys the module cache. */
  load: () => Promise<MenuComponent>;
  className: string;
  label: string;
  children: ReactNode;
}) {
  const [Menu, setMenu] = useState<MenuComponent | undefined>(() => loaded.get(load));
  const [openOnArrival, setOpenOnArrival] = useState(false);

  if (Menu) return <Menu defaultOpen={openOnArrival} />;

  const fetchMenu = (open: boolean) => {
    if (open) setOpenOnArrival(true);
    load().then(
      (component) => {
        loaded.set(load, component);
        // Only a visitor who asked for the menu gets it swapped in now; swapping under a
        // focused trigger would drop keyboard focus.
        if (open) setMenu(() => component);
      },
      () => setOpenOnArrival(false),
    );
  };

  return (
    <button
      type="button"
      className={className}
      aria-label={label}
      aria-haspopup="menu"
      aria-expanded={false}
      data-state="closed"
      onPointerEnter={() => fetchMenu(false)}
      onFocus={() => fetchMenu(false)}
      onClick={() => fetchMenu(true)}
      onKeyDown={(event) => {
        if (event.key === "ArrowDown") {
          event.preventDefault();
          fetchMenu(true);
        }
      }}
    >
      {children}
    </button>
  );
}
