import type { ReactNode } from "react";
import type { PageSlug } from "../../../common/locales.ts";
import { House, MessagesSquare, PenLine, Search, Waves } from "../../icons.ts";
import { bottleDraft } from "../../lib/drafts.ts";
import type { Feature } from "../../lib/feature-paths.ts";
import { useFeature } from "../../lib/features.ts";
import { useI18n } from "../../lib/i18n.tsx";
import { PageIntro } from "../PageIntro.tsx";
import { PageLink } from "../PageLink.tsx";
import "./resting.css";

/**
 * Where a visitor may go instead while a part rests: a page of another part (`part`), offered
 * only while that part is on itself.
 */
const elsewhere = {
  chat: { to: "create", icon: PenLine, part: "bottles" },
  bottles: { to: "random-chat", icon: MessagesSquare, part: "chat" },
  publicBottles: { to: "discover", icon: Search, part: "bottles" },
} as const satisfies Record<Feature, { to: PageSlug; icon: unknown; part: Feature }>;

/**
 * A calm page for a part of the site the operator has switched off for a while: not an error,
 * just the tide out. It gives way by itself when the part is back (see useFeature).
 */
export function RestingPage({ feature }: { feature: Feature }) {
  const { LL } = useI18n();
  const t = LL.resting;
  const other = elsewhere[feature];
  const otherIsOn = useFeature(other.part);
  return (
    <div className="container--narrow resting">
      <PageIntro title={t[feature].title()}>{t[feature].body()}</PageIntro>
      <section className="card resting__card" aria-label={t[feature].title()}>
        <Waves aria-hidden="true" className="resting__icon" />
        <p>{t.notYou()}</p>
        {feature === "bottles" && bottleDraft.has() && <p>{t.draftKept()}</p>}
        <div className="button-row">
          <PageLink to="" icon={House} className="button button--primary">
            {LL.common.returnHome()}
          </PageLink>
          {otherIsOn && (
            <PageLink to={other.to} icon={other.icon} className="button button--ghost">
              {t[feature].elsewhere()}
            </PageLink>
          )}
        </div>
      </section>
    </div>
  );
}

/** The page itself while its part of the site is on; the resting page while it is off. */
export function FeatureGate({ feature, children }: { feature: Feature; children: ReactNode }) {
  return useFeature(feature) ? children : <RestingPage feature={feature} />;
}
