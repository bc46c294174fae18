import type { ReactNode } from "react";

/** A page's heading and its one-line introduction. */
export function PageIntro({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <header className="page-intro">
      <h1 className="page-intro__title">{title}</h1>
      {children && <p className="page-intro__lead">{children}</p>}
    </header>
  );
}
