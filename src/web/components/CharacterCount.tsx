import { useI18n } from "../lib/i18n.tsx";

/**
 * "12 / 1000" under a text field, read out as "12 of 1000 characters used". The field names
 * it in aria-describedby by `id`; `near` marks it when little room is left.
 */
export function CharacterCount({
  id,
  count,
  limit,
  near = false,
}: {
  id: string;
  count: number;
  limit: number;
  near?: boolean;
}) {
  const { LL } = useI18n();
  return (
    <p
      id={id}
      className={near ? "field__hint field__counter is-near" : "field__hint field__counter"}
    >
      <span aria-hidden="true">{LL.characters.count({ count, limit })}</span>
      <span className="visually-hidden">{LL.characters.countSpoken({ count, limit })}</span>
    </p>
  );
}
