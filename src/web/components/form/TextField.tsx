import type { ChangeEvent } from "react";
import { CharacterCount } from "../CharacterCount.tsx";
import { useFieldContext, useFormState } from "./context.ts";
import { isIssue } from "./issues.ts";

export interface TextFieldProps {
  label: string;
  hint?: string;
  /** A text box of this many rows instead of a one-line input. */
  rows?: number;
  type?: "text" | "password" | "email";
  autoComplete: string;
  maxLength: number;
  placeholder?: string;
  /** "12 / 1000" under the field; `near` marks it when little room is left. */
  counter?: { near: boolean };
  /** Whether the form-wide alert, when shown, is about this field too. */
  alertDescribes?: boolean;
  className?: string;
}

/**
 * A labelled text field of a SchemaForm, with its problem, hint and character count, wired
 * for assistive technology. Typing clears the field's problem; what was typed always stays.
 */
export function TextField({
  label,
  hint,
  rows,
  type = "text",
  autoComplete,
  maxLength,
  placeholder,
  counter,
  alertDescribes = false,
  className,
}: TextFieldProps) {
  const field = useFieldContext<string>();
  const form = useFormState();
  const name = field.name;
  const inputId = `${form.id}-${name}`;
  const errorId = `${inputId}-error`;
  const hintId = `${inputId}-hint`;
  const counterId = `${inputId}-counter`;
  const [first] = field.state.meta.errors;
  const issue = isIssue(first) ? first : undefined;
  const describedBy =
    [
      issue && errorId,
      alertDescribes && form.alert ? form.alertId : undefined,
      hint && hintId,
      counter && counterId,
    ]
      .filter(Boolean)
      .join(" ") || undefined;

  const onChange = (event: ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => {
    field.handleChange(event.target.value);
    if (issue) field.setMeta((meta) => ({ ...meta, errorMap: {} }));
  };

  const shared = {
    id: inputId,
    name,
    value: field.state.value,
    onChange,
    required: true,
    disabled: form.busy,
    maxLength,
    placeholder,
    autoComplete,
    "aria-invalid": issue ? true : undefined,
    "aria-describedby": describedBy,
    className: className ? `field__input ${className}` : "field__input",
    ref: form.register(name),
  };
  // Names, e-mail addresses and usernames are not words to correct or capitalize.
  const literal = type === "email" || autoComplete === "username";
  const error = issue && (
    <p id={errorId} className="field__error">
      {form.describe(issue)}
    </p>
  );

  return (
    <div className="field">
      <label className="field__label" htmlFor={inputId}>
        {label}
      </label>
      {rows ? (
        <textarea {...shared} rows={rows} />
      ) : (
        <input
          {...shared}
          type={type}
          inputMode={type === "email" ? "email" : undefined}
          spellCheck={literal ? false : undefined}
          autoCapitalize={literal ? "none" : undefined}
          autoCorrect={literal ? "off" : undefined}
        />
      )}
      {counter ? (
        <div className="field__under">
          {error ?? <span />}
          <CharacterCount
            id={counterId}
            count={field.state.value.length}
            limit={maxLength}
            near={counter.near}
          />
        </div>
      ) : (
        error
      )}
      {hint && (
        <p id={hintId} className="field__hint">
          {hint}
        </p>
      )}
    </div>
  );
}
