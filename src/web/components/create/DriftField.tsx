import { Slider } from "radix-ui";
import { BOTTLE_LIMITS } from "../../../common/bottles.ts";
import { useI18n } from "../../lib/i18n.tsx";
import { useFieldContext, useFormState } from "../form/context.ts";
import type { Issue } from "../form/issues.ts";
import { driftLabels, formatWhen, HOUR_MS } from "./bottle-time.ts";

/**
 * How long the bottle drifts before anyone can find it: a slider from now to 7 days, when it
 * surfaces, and `problem`: that it would expire first, found as the writer moves the controls
 * or when the bottle is thrown.
 */
export function DriftField({ now, problem }: { now: number; problem: Issue | undefined }) {
  const { LL, locale } = useI18n();
  const t = LL.create;
  const field = useFieldContext<number>();
  const form = useFormState();
  const id = `${form.id}-drift`;
  const hours = field.state.value;
  const drift = driftLabels(LL, hours);
  const spoken = drift.days ? `${drift.main} (${drift.days})` : drift.main;
  const describedBy = [`${id}-hint`, `${id}-surfaces`, problem && `${id}-error`]
    .filter(Boolean)
    .join(" ");

  return (
    <div className="field create__drift">
      <div className="create__head">
        <span id={`${id}-label`} className="field__label">
          {t.drift()}
        </span>
        <span className="create__value" aria-hidden="true">
          {drift.main}
          {drift.days && <span className="create__value-days">{drift.days}</span>}
        </span>
      </div>
      <p id={`${id}-hint`} className="field__hint">
        {t.driftHint()}
      </p>
      <Slider.Root
        className="slider"
        min={0}
        max={BOTTLE_LIMITS.driftMaxHours}
        step={1}
        value={[hours]}
        onValueChange={([next]) => {
          field.handleChange(next ?? 0);
          field.setMeta((meta) => ({ ...meta, errorMap: {} }));
        }}
        disabled={form.busy}
        data-invalid={problem ? "" : undefined}
      >
        <Slider.Track className="slider__track">
          <Slider.Range className="slider__range" />
        </Slider.Track>
        <Slider.Thumb
          ref={form.register(field.name)}
          className="slider__thumb"
          aria-labelledby={`${id}-label`}
          aria-valuetext={spoken}
          aria-invalid={problem ? true : undefined}
          aria-describedby={describedBy}
        />
      </Slider.Root>
      <div className="slider__scale" aria-hidden="true">
        <span>{t.driftScaleStart()}</span>
        <span>{t.driftScaleEnd()}</span>
      </div>
      <p id={`${id}-surfaces`} className="field__hint">
        {hours === 0
          ? t.surfacesNow()
          : t.surfacesAt({ when: formatWhen(now + hours * HOUR_MS, locale) })}
      </p>
      <div aria-live="polite">
        {problem && (
          <p id={`${id}-error`} className="field__error create__conflict">
            {form.describe(problem)}
          </p>
        )}
      </div>
    </div>
  );
}
