import type { BottleState, MyBottle } from "../../../common/bottles.ts";
import { countryName, flagOf } from "../../../common/country.ts";
import {
  Anchor,
  CalendarX,
  Eye,
  EyeOff,
  Globe,
  Heart,
  Hourglass,
  Lock,
  type LucideIcon,
  MapPin,
  Waves,
} from "../../icons.ts";
import { useI18n } from "../../lib/i18n.tsx";
import { timeLeftText } from "../chat/time-left.ts";
import { formatWhen } from "../create/bottle-time.ts";
import { canSink, stateAt } from "./bottle-state.ts";

const stateIcons: Record<BottleState, LucideIcon> = {
  drifting: Hourglass,
  ocean: Waves,
  expired: CalendarX,
  hidden: EyeOff,
  sunk: Anchor,
};

/** The card's heading id, so focus can come back to a card whose button is gone. */
export const myBottleHeadingId = (id: number) => `my-bottle-${id}`;

/**
 * One of the writer's bottles: when it was thrown, where it is now, the message, how many
 * visitors found it, its likes and the countries it washed ashore in; and Sink it while it is
 * still in the ocean.
 */
export function MyBottleCard({
  bottle,
  now,
  onSink,
}: {
  bottle: MyBottle;
  now: number;
  onSink: (bottle: MyBottle) => void;
}) {
  const { LL, locale } = useI18n();
  const t = LL.myBottles;
  const state = stateAt(bottle, now);
  const StateIcon = stateIcons[state];
  const thrown = new Date(bottle.createdAt);
  const thrownText = new Intl.DateTimeFormat(locale, {
    dateStyle: "medium",
    timeStyle: "short",
  }).format(thrown);
  const headingId = myBottleHeadingId(bottle.id);

  let stateText: string;
  let hint: string | undefined;
  switch (state) {
    case "drifting":
      stateText = t.state.drifting({ when: formatWhen(bottle.availableAt, locale) });
      hint = `${t.state.driftingLeft({ left: timeLeftText(LL, bottle.availableAt, now) })} · ${t.stateHint.drifting()}`;
      break;
    case "ocean":
      stateText =
        bottle.expiresAt === null
          ? t.state.ocean()
          : t.state.oceanUntil({ when: formatWhen(bottle.expiresAt, locale) });
      break;
    case "expired":
      stateText = t.state.expired({ when: formatWhen(bottle.expiresAt ?? now, locale) });
      break;
    case "hidden":
      stateText = t.state.hidden();
      hint = t.stateHint.hidden();
      break;
    case "sunk":
      stateText = t.state.sunk();
      hint = t.stateHint.sunk();
      break;
  }

  return (
    <li>
      <article className={`my-bottle is-${state}`} aria-labelledby={headingId}>
        <header className="my-bottle__head">
          <h2 id={headingId} className="my-bottle__thrown" tabIndex={-1}>
            <time dateTime={thrown.toISOString()}>{t.thrown({ date: thrownText })}</time>
          </h2>
          <p className="my-bottle__public">
            {bottle.isPublic ? <Globe aria-hidden="true" /> : <Lock aria-hidden="true" />}
            {bottle.isPublic ? t.isPublic() : t.isPrivate()}
          </p>
        </header>

        <div className="my-bottle__where">
          <p className={`my-bottle__state my-bottle__state--${state}`}>
            <StateIcon aria-hidden="true" />
            <span>{stateText}</span>
          </p>
          {hint && <p className="my-bottle__hint">{hint}</p>}
        </div>

        <div className="bottle-card__paper my-bottle__paper">
          <p className="bottle-card__message">{bottle.message}</p>
        </div>

        <ul className="my-bottle__stats">
          <li>
            <Eye aria-hidden="true" />
            {bottle.finds > 0 ? t.found({ count: bottle.finds }) : t.notFound()}
          </li>
          <li>
            <Heart aria-hidden="true" className="my-bottle__heart" />
            {t.likes({ count: bottle.likes })}
          </li>
        </ul>

        {bottle.shores.length > 0 && (
          <div className="my-bottle__shores">
            <p className="my-bottle__shores-title" id={`${headingId}-shores`}>
              <MapPin aria-hidden="true" />
              {t.shores()}
            </p>
            <ul aria-labelledby={`${headingId}-shores`} className="my-bottle__flags">
              {bottle.shores.map((shore) => {
                const name = countryName(shore.countryCode, locale);
                return (
                  <li key={shore.countryCode} className="my-bottle__shore">
                    <span className="my-bottle__flag" aria-hidden="true">
                      {flagOf(shore.countryCode)}
                    </span>
                    <span aria-hidden="true">{name}</span>
                    {shore.finds > 1 && (
                      <span className="my-bottle__shore-count" aria-hidden="true">
                        {shore.finds}
                      </span>
                    )}
                    <span className="visually-hidden">
                      {t.shore({ country: name, count: shore.finds })}
                    </span>
                  </li>
                );
              })}
            </ul>
          </div>
        )}

        {canSink(state) && (
          <div className="my-bottle__actions">
            <button
              type="button"
              className="button button--ghost my-bottle__sink"
              aria-haspopup="dialog"
              // Every card has one: its heading says which bottle this one sinks.
              aria-describedby={headingId}
              onClick={() => onSink(bottle)}
            >
              <Anchor aria-hidden="true" className="my-bottle__anchor" />
              {t.sink()}
            </button>
          </div>
        )}
      </article>
    </li>
  );
}
