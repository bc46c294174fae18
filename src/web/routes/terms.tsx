export function TermsPage() {
  return <div className="container">terms</div>;
}
