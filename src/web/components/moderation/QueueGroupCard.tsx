import type { TranslationFunctions } from "../../../../i18n/i18n-types";
import { Ban, Check, Eye, EyeOff, ShieldAlert, Undo2 } from "../../icons.ts";
import { useI18n } from "../../lib/i18n.tsx";
import { moderationTime } from "./moderation-time.ts";
import type { Moderation, QueueGroup, Verb } from "./useModeration.ts";

/** A group's reports shown in full; the rest are counted. */
const SHOWN_REPORTS = 5;

/**
 * The actions a group offers: a bottle is hidden or put back, a visitor banned or let back. A
 * visitor already banned is offered only the lift: banning again would escalate them twice.
 */
function verbsOf(group: QueueGroup, bannedUntil: number | null): Verb[] {
  if (group.kind === "bottle") return [group.hidden ? "unhide" : "hide", "dismiss"];
  return [bannedUntil === null ? "ban" : "unban", "dismiss"];
}

/** When the chat ban in force on a reported visitor ends, or null when none is. */
function banInForce(group: QueueGroup, now: number): number | null {
  if (group.kind !== "visitor" || group.bannedUntil === null) return null;
  return group.bannedUntil > now ? group.bannedUntil : null;
}

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
  const bannedUntil = banInForce(group, Date.now());
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
            {bannedUntil !== null && (
              <span className="mod-badge">
                {t.bannedUntil({ when: moderationTime(bannedUntil, locale) })}
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
              {t.reasonCount({ reason: reasonName(LL, group.kind, reason), count })}
            </li>
          ))}
        </ul>
        <ul className="mod-group__reports">
          {texts.map((report) => (
            <li key={report.id} className="mod-report">
              <blockquote className="mod-report__text">{report.text}</blockquote>
              {group.kind === "visitor" && (
                <p className="mod-report__meta">
                  {reasonName(LL, group.kind, report.reason)} ·{" "}
                  {moderationTime(report.createdAt, locale)}
                </p>
              )}
            </li>
          ))}
        </ul>
        {more > 0 && <p className="mod-group__more">{t.moreReports({ count: more })}</p>}
        <div className="mod-group__actions">
          {verbsOf(group, bannedUntil).map((verb) => {
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

/** A report reason in the page's language, named as the reporter's dialog named it. */
export function reasonName(
  LL: TranslationFunctions,
  kind: QueueGroup["kind"],
  reason: string,
): string {
  const names: Record<string, () => string> =
    kind === "bottle" ? LL.discover.card.reasons : LL.randomChat.reasons;
  return names[reason]?.() ?? reason;
}
