import { countryName, flagOf } from "../../../common/country.ts";
import { Eye } from "../../icons.ts";
import { useI18n } from "../../lib/i18n.tsx";
import { useWriterCountry } from "./useWriterCountry.ts";

/** Where the bottle sets out from: the writer's country and flag, all a reader will see. */
export function WriterOrigin() {
  const { LL, locale } = useI18n();
  const country = useWriterCountry();
  return (
    <section className="create__origin" aria-live="polite">
      <span className="flag-badge create__flag" aria-hidden="true">
        {country.pending ? "" : flagOf(country.code)}
      </span>
      <div className="create__origin-text">
        <p className="create__origin-label">{LL.create.sendingFrom()}</p>
        <p className="create__origin-name" data-testid="writer-country">
          {country.pending ? LL.create.locating() : countryName(country.code, locale)}
        </p>
      </div>
      <p className="create__origin-note">
        <Eye aria-hidden="true" />
        <span>{LL.create.countryNote()}</span>
      </p>
    </section>
  );
}
