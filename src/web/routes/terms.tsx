import { LegalDocument, LegalList, type LegalSection } from "../components/LegalDocument.tsx";
import { useI18n } from "../lib/i18n.tsx";

export function TermsPage() {
  const { LL } = useI18n();
  const s = LL.terms.sections;

  const sections: LegalSection[] = [
    { id: "acceptance", title: s.acceptance.title(), content: <p>{s.acceptance.body()}</p> },
    {
      id: "use-licence",
      title: s.licence.title(),
      content: (
        <>
          <p>{s.licence.body()}</p>
          <LegalList
            items={[
              s.licence.item1(),
              s.licence.item2(),
              s.licence.item3(),
              s.licence.item4(),
              s.licence.item5(),
            ]}
          />
          <p>{s.licence.note()}</p>
        </>
      ),
    },
    {
      id: "content-guidelines",
      title: s.content.title(),
      content: (
        <>
          <p>{s.content.body()}</p>
          <LegalList
            items={[
              s.content.item1(),
              s.content.item2(),
              s.content.item3(),
              s.content.item4(),
              s.content.item5(),
              s.content.item6(),
            ]}
          />
        </>
      ),
    },
    {
      id: "disclaimer",
      title: s.disclaimer.title(),
      content: (
        <>
          <p>{s.disclaimer.body()}</p>
          <p>{s.disclaimer.moderation()}</p>
        </>
      ),
    },
    { id: "liability", title: s.liability.title(), content: <p>{s.liability.body()}</p> },
    { id: "changes", title: s.changes.title(), content: <p>{s.changes.body()}</p> },
    { id: "governing-law", title: s.law.title(), content: <p>{s.law.body()}</p> },
  ];

  return (
    <LegalDocument
      title={LL.terms.title()}
      lead={LL.terms.lead()}
      tocLabel={LL.terms.toc()}
      sections={sections}
    />
  );
}
