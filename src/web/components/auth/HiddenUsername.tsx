/** Lets password managers know whose password a form is about. */
export function HiddenUsername({ username }: { username: string }) {
  return (
    <input
      type="text"
      name="username"
      autoComplete="username"
      value={username}
      readOnly
      hidden
      tabIndex={-1}
    />
  );
}
