export function ContactPage() {
  return <div className="container">contact</div>;
}
