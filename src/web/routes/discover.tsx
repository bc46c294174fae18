import { PageIntro } from "../components/PageIntro.tsx";
import { useI18n } from "../lib/i18n.tsx";

export function DiscoverPage() {
  const { LL } = useI18n();
  return (
    <div className="container">
      <PageIntro title={LL.discover.title()}>{LL.discover.subtitle()}</PageIntro>
      <p className="notice">{LL.common.comingSoon()}</p>
    </div>
  );
}
