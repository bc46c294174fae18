import { Languages } from "../../icons.ts";
import { useI18n } from "../../lib/i18n.tsx";

/**
 * Shown while the server has no translator beyond Chinese script conversion: what visitors get,
 * and where the operator reads how to add one (the README ships with the server, not online).
 */
export function TranslatorNotice() {
  const t = useI18n().LL.moderation.translatorNotice;
  return (
    <section className="card mod-notice" aria-labelledby="mod-translator">
      <Languages aria-hidden="true" className="mod-notice__icon" />
      <div className="mod-notice__text">
        <h2 id="mod-translator" className="mod-notice__title">
          {t.title()}
        </h2>
        <p>
          {t.body()} <strong>{t.where()}</strong>
        </p>
      </div>
    </section>
  );
}
