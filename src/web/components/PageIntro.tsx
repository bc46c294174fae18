import { type ReactNode, useEffect, useRef } from "react";
import { takeHeadingFocus } from "../lib/focus.ts";

/**
 * A page's one heading. After a navigation that lost the focus (a phone menu's link, a toast's
 * link), it takes it, so keyboard and screen-reader users start at the top of the new page.
 */
export function PageHeading({
  id,
  className,
  children,
}: {
  id?: string;
  className: string;
  children: ReactNode;
}) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (ref.current) takeHeadingFocus(ref.current);
  }, []);
  return (
    <h1 ref={ref} id={id} className={className} tabIndex={-1}>
      {children}
    </h1>
  );
}

/** A page's heading and its one-line introduction. */
export function PageIntro({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <header className="page-intro">
      <PageHeading className="page-intro__title">{title}</PageHeading>
      {children && <p className="page-intro__lead">{children}</p>}
    </header>
  );
}
