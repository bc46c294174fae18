import { useEffect, useRef } from "react";
import { COMMAND_LINE } from "../../../common/moderation.ts";
import { Undo2 } from "../../icons.ts";
import { useI18n } from "../../lib/i18n.tsx";
import { moderationTime } from "./moderation-time.ts";
import { subjectName } from "./subject-name.ts";
import type { Moderation, ModerationAction, Verb } from "./useModeration.ts";

/** What undoes an action, when it is the latest one on its subject. */
const undoOf: Partial<Record<string, Verb>> = { hide: "unhide", ban: "unban" };

/**
 * What came of an action, in the operator's language, from the facts recorded with it: reports
 * closed, a ban's end, a lift that found no ban.
 */
function ActionDetail({ action }: { action: ModerationAction }) {
  const { LL, locale } = useI18n();
  const t = LL.moderation.actions.details;
  const { details } = action;
  let text = "";
  if (details && "closed" in details && (details.closed > 0 || action.action === "dismiss")) {
    text = t.closed({ count: details.closed });
  } else if (details && "until" in details) {
    text = t.until({ when: moderationTime(details.until, locale) });
  } else if (details && "lifted" in details && details.lifted.length === 0) {
    text = t.noBan();
  }
  return text ? <span className="mod-table__detail">{text}</span> : null;
}

/** The dictionary key of an action as recorded ("switch off" reads switchOff). */
const nameKey = (action: string) => action.replace(/ (\w)/g, (_, c: string) => c.toUpperCase());

/**
 * The operators' latest actions, newest first: who did what to which subject, and when. A hide
 * or a ban that still stands can be undone here, since its reports have left the queue.
 */
export function RecentActions({
  actions,
  moderation,
}: {
  actions: readonly ModerationAction[];
  moderation: Moderation;
}) {
  const { LL, locale } = useI18n();
  const t = LL.moderation.actions;
  const seen = new Set<string>();
  const names: Record<string, () => string> = t.names;
  const rows = useRef(new Map<number, HTMLTableRowElement>());
  const { focusAction, focusDone } = moderation;
  // The row of the action just done takes the focus once the list has it.
  useEffect(() => {
    if (!focusAction) return;
    const done = actions.find((a) => a.subject === focusAction.subject && a.id > focusAction.after);
    if (!done) return;
    rows.current.get(done.id)?.focus();
    focusDone();
  }, [actions, focusAction, focusDone]);
  return (
    <section className="mod-section" aria-labelledby="mod-actions">
      <h2 id="mod-actions" className="mod-section__title">
        {t.title()}
      </h2>
      {actions.length === 0 ? (
        <p className="mod-section__lead">{t.none()}</p>
      ) : (
        // On a phone each row stands as a card of its own (moderation.css), so nothing lies off
        // to the side of the screen.
        <table className="mod-table" aria-labelledby="mod-actions">
          <thead>
            <tr>
              <th scope="col">{t.when()}</th>
              <th scope="col">{t.who()}</th>
              <th scope="col">{t.what()}</th>
              <th scope="col">{t.subject()}</th>
              <th scope="col">
                <span className="visually-hidden">{t.undo()}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {actions.map((action) => {
              const latest = !seen.has(action.subject);
              seen.add(action.subject);
              const undo = latest ? undoOf[action.action] : undefined;
              return (
                <tr
                  key={action.id}
                  tabIndex={-1}
                  ref={(row) => {
                    if (row) rows.current.set(action.id, row);
                    else rows.current.delete(action.id);
                  }}
                >
                  <td className="mod-table__when">{moderationTime(action.created_at, locale)}</td>
                  <td className="mod-table__who">
                    {action.operator === COMMAND_LINE
                      ? LL.moderation.actions.commandLine()
                      : action.operator}
                  </td>
                  <td className="mod-table__what">
                    {names[nameKey(action.action)]?.() ?? action.action}
                  </td>
                  <td className="mod-table__subject">
                    {subjectName(LL, action.subject)}
                    <ActionDetail action={action} />
                  </td>
                  <td className="mod-table__undo-cell">
                    {undo && (
                      <button
                        type="button"
                        className="button button--ghost mod-table__undo"
                        disabled={moderation.busySubject === action.subject}
                        onClick={() => moderation.act(undo, action.subject)}
                      >
                        <Undo2 aria-hidden="true" />
                        {LL.moderation.verbs[undo]()}
                      </button>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}
