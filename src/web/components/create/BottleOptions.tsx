import { Checkbox, RadioGroup } from "radix-ui";
import { EXPIRY_DAY_OPTIONS } from "../../../common/bottles.ts";
import { Check } from "../../icons.ts";
import { useI18n } from "../../lib/i18n.tsx";
import { useFieldContext, useFormState } from "../form/context.ts";
import { formatWhen } from "./bottle-time.ts";

/** When the bottle expires: 1, 3, 5 or 7 days, and the moment that means. */
export function ExpiryField({ expiresAt, conflictId }: { expiresAt: number; conflictId?: string }) {
  const { LL, locale } = useI18n();
  const field = useFieldContext<number>();
  const form = useFormState();
  const id = `${form.id}-expiry`;
  return (
    <div className="field create__expiry">
      <span id={`${id}-label`} className="field__label">
        {LL.create.expiry()}
      </span>
      <RadioGroup.Root
        className="segmented"
        value={String(field.state.value)}
        onValueChange={(value) => field.handleChange(Number(value))}
        orientation="horizontal"
        disabled={form.busy}
        aria-labelledby={`${id}-label`}
        aria-describedby={conflictId ? `${id}-at ${conflictId}` : `${id}-at`}
      >
        {EXPIRY_DAY_OPTIONS.map((days) => (
          <RadioGroup.Item key={days} value={String(days)} className="segmented__item">
            {LL.create.expiryOption({ days })}
          </RadioGroup.Item>
        ))}
      </RadioGroup.Root>
      <p id={`${id}-at`} className="field__hint">
        {LL.create.expiresAt({ when: formatWhen(expiresAt, locale) })}
      </p>
    </div>
  );
}

/** Whether the bottle also floats in the Public Bottles collection. */
export function PublicField() {
  const { LL } = useI18n();
  const field = useFieldContext<boolean>();
  const form = useFormState();
  const id = `${form.id}-public`;
  return (
    <div className="create__public">
      <Checkbox.Root
        id={id}
        className="checkbox"
        checked={field.state.value}
        onCheckedChange={(checked) => field.handleChange(checked === true)}
        disabled={form.busy}
        aria-describedby={`${id}-hint`}
      >
        <Checkbox.Indicator className="checkbox__indicator">
          <Check aria-hidden="true" />
        </Checkbox.Indicator>
      </Checkbox.Root>
      <div>
        <label className="field__label" htmlFor={id}>
          {LL.create.isPublic()}
        </label>
        <p id={`${id}-hint`} className="field__hint">
          {LL.create.isPublicHint()}
        </p>
      </div>
    </div>
  );
}
