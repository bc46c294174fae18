import { PageIntro } from "../components/PageIntro.tsx";
import { useI18n } from "../lib/i18n.tsx";

export function CreatePage() {
  const { LL } = useI18n();
  return (
    <div className="container">
      <PageIntro title={LL.create.title()}>{LL.create.subtitle()}</PageIntro>
      <p className="notice">{LL.common.comingSoon()}</p>
    </div>
  );
}
