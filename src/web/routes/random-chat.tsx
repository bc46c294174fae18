import { PageIntro } from "../components/PageIntro.tsx";
import { useI18n } from "../lib/i18n.tsx";

export function RandomChatPage() {
  const { LL } = useI18n();
  return (
    <div className="container">
      <PageIntro title={LL.randomChat.title()}>{LL.randomChat.description()}</PageIntro>
      <p className="notice">{LL.common.comingSoon()}</p>
    </div>
  );
}
