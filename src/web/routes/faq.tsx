import { Link } from "@tanstack/react-router";
import { Accordion } from "radix-ui";
import { localizedPath } from "../../common/locales.ts";
import { PageIntro } from "../components/PageIntro.tsx";
import { PageLink } from "../components/PageLink.tsx";
import { ChevronDown, House } from "../icons.ts";
import { useI18n } from "../lib/i18n.tsx";
import "./faq.css";

/** The six questions, in the order the page asks them, from how it works to languages. */
const questionKeys = [
  "howItWorks",
  "driftDuration",
  "whoCanRead",
  "allowedContent",
  "replies",
  "languages",
] as const;

export function FaqPage() {
  const { LL, prefix } = useI18n();
  return (
    <div className="container--narrow faq">
      <PageIntro title={LL.faq.title()}>{LL.faq.lead()}</PageIntro>
      {/* One item open at a time; the open one closes again when its question is chosen. */}
      <Accordion.Root type="single" collapsible className="faq__list">
        {questionKeys.map((key) => {
          const item = LL.faq.items[key];
          return (
            <Accordion.Item key={key} value={key} className="faq__item">
              <Accordion.Header asChild>
                <h2 className="faq__heading">
                  <Accordion.Trigger className="faq__trigger">
                    <span>{item.question()}</span>
                    <ChevronDown aria-hidden="true" className="faq__chevron" />
                  </Accordion.Trigger>
                </h2>
              </Accordion.Header>
              <Accordion.Content className="faq__content">
                <p className="faq__answer">{item.answer()}</p>
              </Accordion.Content>
            </Accordion.Item>
          );
        })}
      </Accordion.Root>
      <p className="faq__more">
        {LL.faq.more()} <Link to={localizedPath(prefix, "contact")}>{LL.faq.contactLink()}</Link>
      </p>
      <div className="button-row">
        <PageLink to="" icon={House} className="button button--primary">
          {LL.common.returnHome()}
        </PageLink>
      </div>
    </div>
  );
}
