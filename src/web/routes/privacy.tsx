export function PrivacyPage() {
  return <div className="container">privacy</div>;
}
