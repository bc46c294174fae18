import type { ComponentType, FormEvent, PropsWithChildren, ReactNode } from "react";
import { type FormState, FormStateContext } from "./context.ts";
import type { TextFieldProps } from "./TextField.tsx";

/** The parts of a useSchemaForm form that SchemaForm and TextFields need. */
export interface SchemaFormApi<F extends string> {
  AppForm: ComponentType<PropsWithChildren>;
  AppField: (props: {
    name: F;
    children: (field: { TextField: ComponentType<TextFieldProps> }) => ReactNode;
  }) => ReactNode | Promise<ReactNode>;
  handleSubmit: () => Promise<void>;
}

/** A form element for useSchemaForm: no browser checks (the schema's messages speak instead). */
export function SchemaForm<F extends string>({
  form,
  state,
  className,
  label,
  labelledBy,
  children,
}: {
  form: SchemaFormApi<F>;
  state: FormState;
  className?: string;
  label?: string;
  labelledBy?: string;
  children: ReactNode;
}) {
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!state.busy) void form.handleSubmit();
  };
  return (
    <form.AppForm>
      <FormStateContext.Provider value={state}>
        <form
          className={className}
          noValidate
          onSubmit={onSubmit}
          aria-label={label}
          aria-labelledby={labelledBy}
          aria-busy={state.busy}
        >
          {children}
        </form>
      </FormStateContext.Provider>
    </form.AppForm>
  );
}

/** A text field's description for TextFields: autoComplete is "off" unless `more` says. */
export function textField<F extends string>(
  name: F,
  label: string,
  maxLength: number,
  more: Partial<TextFieldProps> = {},
): TextFieldProps & { name: F } {
  return { name, label, maxLength, autoComplete: "off", ...more };
}

/** One text field per entry, in order. */
export function TextFields<F extends string>({
  form,
  fields,
}: {
  form: SchemaFormApi<F>;
  fields: ReadonlyArray<TextFieldProps & { name: F }>;
}) {
  return fields.map(({ name, ...props }) => (
    <form.AppField key={name} name={name}>
      {(field) => <field.TextField {...props} />}
    </form.AppField>
  ));
}
