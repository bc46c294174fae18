import { RotateCcw } from "../icons.ts";
import { useI18n } from "../lib/i18n.tsx";

/** "Reload": loads the page again, for a way out that needs a fresh page. */
export function ReloadButton({ className }: { className: string }) {
  const { LL } = useI18n();
  return (
    <button type="button" className={className} onClick={() => location.reload()}>
      <RotateCcw aria-hidden="true" />
      {LL.common.reload()}
    </button>
  );
}
