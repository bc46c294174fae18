import { useSyncExternalStore } from "react";
import { WifiOff } from "../icons.ts";
import { useI18n } from "../lib/i18n.tsx";
import "./OfflineNotice.css";

function subscribe(changed: () => void): () => void {
  window.addEventListener("online", changed);
  window.addEventListener("offline", changed);
  return () => {
    window.removeEventListener("online", changed);
    window.removeEventListener("offline", changed);
  };
}

/**
 * While the device has no network, says so on every page: a throw, a search or a sign-in
 * started then waits (the API client holds calls until the device is back) instead of failing,
 * and without this its spinner would turn with no reason given.
 */
export function OfflineNotice() {
  const { LL } = useI18n();
  const online = useSyncExternalStore(
    subscribe,
    () => navigator.onLine,
    () => true,
  );
  // Always in the page, so screen readers announce the text when it appears.
  return (
    <div className="offline-notice" role="status">
      {!online && (
        <p className="offline-notice__text">
          <WifiOff aria-hidden="true" />
          {LL.common.offline()}
        </p>
      )}
    </div>
  );
}
