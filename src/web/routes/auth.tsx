import { PageIntro } from "../components/PageIntro.tsx";
import { useI18n } from "../lib/i18n.tsx";

export function AuthPage() {
  const { LL } = useI18n();
  return (
    <div className="container">
      <PageIntro title={LL.auth.title()}>{LL.auth.subtitle()}</PageIntro>
      <p className="notice">{LL.common.comingSoon()}</p>
    </div>
  );
}
