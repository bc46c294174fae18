import { type ComponentType, useEffect, useRef, useState } from "react";
import { toast } from "sonner";
import { useI18n } from "../lib/i18n.tsx";
import type { ReportDialogProps } from "./ReportDialog.tsx";

// A generic component loses its type parameter through a dynamic import; every caller's props
// are still checked against ReportDialogProps<Reason> by the wrapper's own signature.
type AnyReportDialog = ComponentType<ReportDialogProps<string>>;

let loaded: AnyReportDialog | undefined;
const load = () =>
  import("./ReportDialog.tsx").then((module) => {
    loaded = module.ReportDialog as AnyReportDialog;
    return loaded;
  });

function whenIdle(task: () => void): () => void {
  if ("requestIdleCallback" in window) {
    const id = window.requestIdleCallback(task, { timeout: 4000 });
    return () => window.cancelIdleCallback(id);
  }
  const id = setTimeout(task, 1000);
  return () => clearTimeout(id);
}

/**
 * The report dialog, whose code (the form library and its schemas, the largest part of a page's
 * scripts) a page that offers Report fetches once the browser is idle after drawing, or at once
 * when Report is pressed first.
 */
export function ReportDialog<Reason extends string>(props: ReportDialogProps<Reason>) {
  const { LL } = useI18n();
  const [Dialog, setDialog] = useState<AnyReportDialog | undefined>(() => loaded);
  const { open } = props;
  // The latest close handler and wording, without restarting the fetch on every render.
  const latest = useRef({ onOpenChange: props.onOpenChange, LL });
  latest.current = { onOpenChange: props.onOpenChange, LL };

  useEffect(() => {
    if (Dialog) return;
    let live = true;
    const arrive = (component: AnyReportDialog) => {
      if (live) setDialog(() => component);
    };
    if (!open) {
      const cancel = whenIdle(() => void load().then(arrive, () => undefined));
      return () => {
        live = false;
        cancel();
      };
    }
    load().then(arrive, () => {
      if (!live) return;
      latest.current.onOpenChange(false);
      toast.error(latest.current.LL.errors.network());
    });
    return () => {
      live = false;
    };
  }, [Dialog, open]);

  return Dialog ? <Dialog {...(props as unknown as ReportDialogProps<string>)} /> : null;
}
