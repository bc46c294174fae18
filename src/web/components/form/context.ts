import { createFormHookContexts } from "@tanstack/react-form";
import { createContext, useContext } from "react";
import type { Issue } from "./issues.ts";

// TanStack Form's contexts for the form and its fields, apart from the components that read
// them so no module imports back the one that imports it.
export const { fieldContext, formContext, useFieldContext } = createFormHookContexts();

/** What the fields of one form share besides TanStack's own state. */
export interface FormState {
  /** The form's own id; fields build theirs from it. */
  id: string;
  /** Sending (or locked by the page): the fields are disabled. */
  busy: boolean;
  /** The form-wide problem, if any, and the id of the element that shows it. */
  alert: string | null;
  alertId: string;
  /** A field problem in words. */
  describe: (issue: Issue) => string;
  /** Keeps a field's element (or the submit button) so focus can move to it. */
  register: (name: string) => (element: HTMLElement | null) => void;
}

export const FormStateContext = createContext<FormState | null>(null);

export function useFormState(): FormState {
  const state = useContext(FormStateContext);
  if (!state) throw new Error("a form field is used outside its SchemaForm");
  return state;
}
