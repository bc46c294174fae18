import { Ban, Check, Eye, EyeOff, ShieldAlert, Undo2 } from "lucide-react";
import type { TranslationFunctions } from "../../../../i18n/i18n-types";
import { useI18n } from "../../lib/i18n.tsx";
import { moderationTime } from "./moderation-time.ts";
import type { Moderation, QueueGroup, Verb } from "./useModeration.ts";

/** A group's reports shown in full; the rest are counted. */
const SHOWN_REPORTS = 5;

/**
 * The actions a group offers: a bottle is hidden or put back, a visitor banned or let back. A
 * visitor already banned is offered only the lift: banning again would escalate them twice.
 */
function verbsOf(group: QueueGroup, now: number): Verb[] {
  if (group.kind === "bottle") return [group.hidden ? "unhide" : "hide", "dismiss"];
  return [isBanned(group, now) ? "unban" : "ban", "dismiss"];
}

const isBanned = (group: QueueGroup, now: number) =>
  group.kind === "visitor" && group.bannedUntil !== null && group.bannedUntil > now;

/** The actions that take something away are drawn firmer than those that give it back. */
const firm = new Set<Verb>(["hide", "ban"]);

const icons = { hide: EyeOff, unhide: Eye, ban: Ban, unban: Undo2, dismiss: Check } as const;

/** One bottle or chat visitor in the queue: what was reported, why, by how many, and actions. */
export function QueueGroupCard({
  group,
  moderation,
}: {
  group: QueueGroup;
  moderation: Moderation;
}) {
  const { LL, locale } = useI18n();
  const t = LL.moderation;
  const headingId = `mod-${group.subject.replace(/[^A-Za-z0-9_-]/g, "-")}`;
  const busy = moderation.busySubject === group.subject;
  // A bottle's reports all quote the same message: it is shown once.
  const texts =
    group.kind === "bottle" ? group.reports.slice(0, 1) : group.reports.slice(0, SHOWN_REPORTS);
  const more = group.kind === "bottle" ? 0 : group.reports.length - texts.length;
  const now = Date.now();
  return (
    <li>
      <article
        className={group.childSafety ? "mod-group is-urgent" : "mod-group"}
        aria-labelledby={headingId}
        aria-busy={busy}
      >
        <header className="mod-group__head">
          <h3 id={headingId} className="mod-group__title">
            {group.kind === "bottle"
              ? t.bottle({ id: group.bottleId })
              : t.visitor({ id: group.visitorId.slice(0, 8) })}
          </h3>
          <p className="mod-group__badges">
            {group.childSafety && (
              <span className="mod-badge mod-badge--urgent">
                <ShieldAlert aria-hidden="true" />
                {t.childSafety()}
              </span>
            )}
            <span className={`mod-badge mod-badge--${group.verdict}`}>
              {t.verdict[group.verdict]()}
            </span>
            {group.kind === "bottle" && group.hidden && (
              <span className="mod-badge">{t.hidden()}</span>
            )}
            {group.kind === "visitor" && group.bannedUntil !== null && isBanned(group, now) && (
              <span className="mod-badge">
                {t.bannedUntil({ when: moderationTime(group.bannedUntil, locale) })}
              </span>
            )}
          </p>
          <p className="mod-group__meta">
            {t.reporters({ count: group.reporters })} ·{" "}
            {t.latest({ when: moderationTime(group.latestAt, locale) })}
            {group.kind === "visitor" && <> · {t.address({ key: group.ipKey.slice(0, 8) })}</>}
          </p>
        </header>
        <ul className="mod-group__reasons" aria-label={t.reasonsLabel()}>
          {Object.entries(group.reasons).map(([reason, count]) => (
            <li key={reason} className="mod-reason">
              {t.reasonCount({ reason: reasonName(LL, reason), count })}
            </li>
          ))}
        </ul>
        <ul className="mod-group__reports">
          {texts.map((report) => (
            <li key={report.id} className="mod-report">
              <blockquote className="mod-report__text">{report.text}</blockquote>
              {group.kind === "visitor" && (
                <p className="mod-report__meta">
                  {reasonName(LL, report.reason)} · {moderationTime(report.createdAt, locale)}
                </p>
              )}
            </li>
          ))}
        </ul>
        {more > 0 && <p className="mod-group__more">{t.moreReports({ count: more })}</p>}
        <div className="mod-group__actions">
          {verbsOf(group, now).map((verb) => {
            const Icon = icons[verb];
            return (
              <button
                key={verb}
                type="button"
                className={firm.has(verb) ? "button mod-action" : "button button--ghost"}
                disabled={busy}
                onClick={() => moderation.act(verb, group.subject)}
              >
                <Icon aria-hidden="true" />
                {t.verbs[verb]()}
              </button>
            );
          })}
        </div>
      </article>
    </li>
  );
}

/** A report reason in the page's language (a bottle's and a chat's lists share most names). */
export function reasonName(LL: TranslationFunctions, reason: string): string {
  const names: Record<string, () => string> = LL.moderation.reasons;
  return names[reason]?.() ?? reason;
}
