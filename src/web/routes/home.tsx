export function HomePage() {
  return <div className="container">home</div>;
}
