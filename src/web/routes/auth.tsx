import { useLocation, useNavigate } from "@tanstack/react-router";
import { useState } from "react";
import { toast } from "sonner";
import { safeRedirect } from "../../common/auth.ts";
import { localizedPath } from "../../common/locales.ts";
import { SignedIn } from "../components/auth/SignedIn.tsx";
import { type Arrive, SignedOut } from "../components/auth/SignedOut.tsx";
import { PageIntro } from "../components/PageIntro.tsx";
import { LoaderCircle } from "../icons.ts";
import { isSignInPath, useAccount, useSetAccountUser } from "../lib/account.ts";
import { useI18n } from "../lib/i18n.tsx";
import "../components/dialog.css";
import "./auth.css";

/** Where to go after signing in: the same-site page named by `redirect`, else home. */
function returnTarget(searchStr: string, home: string): string {
  const wanted = safeRedirect(new URLSearchParams(searchStr).get("redirect"));
  if (!wanted || isSignInPath(wanted.split(/[?#]/)[0] ?? "")) return home;
  return wanted;
}

/** /auth: sign in or create an account; once signed in, the account. */
export function AuthPage() {
  const { LL, prefix } = useI18n();
  const { user, pending } = useAccount();
  const { searchStr } = useLocation();
  const navigate = useNavigate();
  const setAccountUser = useSetAccountUser();
  // Set once signed in here: the form stays (disabled) until the next page is shown, rather than
  // the account settings flashing up on the way out.
  const [arriving, setArriving] = useState(false);

  const onArrive: Arrive = (arrived, message) => {
    setArriving(true);
    const target = returnTarget(searchStr, localizedPath(prefix, ""));
    void setAccountUser(arrived);
    void navigate({ href: target, replace: true }).then(() => toast.success(message));
  };

  if (pending) {
    return (
      <div className="auth">
        <PageIntro title={LL.auth.title()} />
        <p className="auth__loading" role="status">
          <LoaderCircle aria-hidden="true" className="spinner" />
          {LL.common.loading()}
        </p>
      </div>
    );
  }
  if (user && !arriving) return <SignedIn user={user} />;
  return <SignedOut arriving={arriving} onArrive={onArrive} />;
}
