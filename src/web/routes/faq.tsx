export function FaqPage() {
  return <div className="container">faq</div>;
}
