export function AboutPage() {
  return <div className="container">about</div>;
}
