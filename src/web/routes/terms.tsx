import { LegalDocument, legalSections } from "../components/LegalDocument.tsx";
import { useI18n } from "../lib/i18n.tsx";

export function TermsPage() {
  const { LL } = useI18n();
  return (
    <LegalDocument
      title={LL.terms.title()}
      lead={LL.terms.lead()}
      tocLabel={LL.terms.toc()}
      sections={legalSections(LL.terms.sections)}
    />
  );
}
