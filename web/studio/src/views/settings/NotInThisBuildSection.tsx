/** Settings whose routes this build of the studio does not have yet: named, never faked. */
const PENDING = [
  { title: 'Keys', what: 'Set, verify and remove API keys here (today: environment variables or "keys" in config.json).' },
  { title: 'Quota', what: 'Usage bars of the chat account and alpha.' },
  { title: 'Account switching', what: 'Sign in with another account through a device code.' },
  { title: 'Prompt builder', what: "The builder's backend and model." },
];

export function NotInThisBuildSection() {
  return (
    <section className="settings-section" aria-labelledby="pending-title">
      <h2 id="pending-title">Not available in this build</h2>
      <ul className="pending-list">
        {PENDING.map((entry) => (
          <li key={entry.title}>
            <strong>{entry.title}</strong>: {entry.what}
          </li>
        ))}
      </ul>
    </section>
  );
}
