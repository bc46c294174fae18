import type { Feature, FeatureStates } from "../../lib/feature-paths.ts";
import { useI18n } from "../../lib/i18n.tsx";
import type { Moderation } from "./useModeration.ts";

const order: readonly Feature[] = ["chat", "bottles", "publicBottles"];

/**
 * The site's off switches: a part switched off shows visitors the resting page, on every
 * instance within seconds.
 */
export function FeatureSwitches({
  states,
  moderation,
}: {
  states: FeatureStates;
  moderation: Moderation;
}) {
  const t = useI18n().LL.moderation.switches;
  return (
    <section className="mod-section" aria-labelledby="mod-switches">
      <h2 id="mod-switches" className="mod-section__title">
        {t.title()}
      </h2>
      <p className="mod-section__lead">{t.lead()}</p>
      <ul className="mod-switches">
        {order.map((feature) => {
          const on = states[feature];
          return (
            <li key={feature} className="mod-switch">
              <div className="mod-switch__text">
                <span className="mod-switch__name" id={`mod-switch-${feature}`}>
                  {t.names[feature]()}
                </span>
                <span className="mod-switch__hint">{t.hints[feature]()}</span>
              </div>
              <button
                type="button"
                role="switch"
                aria-checked={on}
                aria-labelledby={`mod-switch-${feature}`}
                className="mod-switch__control"
                disabled={moderation.switching === feature}
                onClick={() => moderation.toggle(feature, !on)}
              >
                <span className="mod-switch__track" aria-hidden="true">
                  <span className="mod-switch__thumb" />
                </span>
                <span className="mod-switch__state">{on ? t.on() : t.resting()}</span>
              </button>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
