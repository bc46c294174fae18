import { FeatureSwitches } from "../components/moderation/FeatureSwitches.tsx";
import { QueueGroupCard } from "../components/moderation/QueueGroupCard.tsx";
import { RecentActions } from "../components/moderation/RecentActions.tsx";
import { TranslatorNotice } from "../components/moderation/TranslatorNotice.tsx";
import { useModeration } from "../components/moderation/useModeration.ts";
import { PageIntro } from "../components/PageIntro.tsx";
import { LoaderCircle, Waves } from "../icons.ts";
import { errorMessage } from "../lib/errors.ts";
import { useI18n } from "../lib/i18n.tsx";
import { trpc } from "../lib/trpc.ts";
import { ForbiddenPage } from "./forbidden.tsx";
import "../components/moderation/moderation.css";

/** A line while something loads or fails, in the page's place. */
function Status({ children, alert = false }: { children: string; alert?: boolean }) {
  return (
    <p className="mod-status" role={alert ? "alert" : "status"}>
      {!alert && <LoaderCircle aria-hidden="true" className="spinner" />}
      {children}
    </p>
  );
}

/** The queue, the off switches and the recent actions, for an operator. */
function ModerationBoard() {
  const { LL } = useI18n();
  const t = LL.moderation;
  const moderation = useModeration();
  const { data, error, isPending } = moderation.queue;
  return (
    <div className="container moderation">
      <PageIntro title={t.title()}>{t.lead()}</PageIntro>
      {isPending && <Status>{LL.common.loading()}</Status>}
      {error && <Status alert>{errorMessage(LL, error)}</Status>}
      {data && (
        <>
          {!data.translator && <TranslatorNotice />}
          <FeatureSwitches states={data.features} moderation={moderation} />
          <section className="mod-section" aria-labelledby="mod-queue">
            <h2 id="mod-queue" className="mod-section__title">
              {t.queue({ count: data.groups.length })}
            </h2>
            {data.groups.length === 0 ? (
              <p className="mod-calm">
                <Waves aria-hidden="true" />
                {t.empty()}
              </p>
            ) : (
              <ol className="mod-queue">
                {data.groups.map((group) => (
                  <QueueGroupCard key={group.subject} group={group} moderation={moderation} />
                ))}
              </ol>
            )}
          </section>
          <RecentActions actions={data.actions} moderation={moderation} />
        </>
      )}
    </div>
  );
}

/**
 * /{prefix}/moderation: for operators only. Anyone else sees the forbidden page (the server
 * answered 403 already), and nothing links here for them.
 */
export function ModerationPage() {
  const { LL } = useI18n();
  const me = trpc.auth.me.useQuery(undefined, { staleTime: 0 });
  if (me.isPending) {
    return (
      <div className="container moderation">
        <PageIntro title={LL.moderation.title()} />
        <Status>{LL.common.loading()}</Status>
      </div>
    );
  }
  return me.data?.isOperator ? <ModerationBoard /> : <ForbiddenPage />;
}
