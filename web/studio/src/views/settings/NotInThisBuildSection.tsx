/** Settings whose routes this build of the studio does not have yet: named, never faked. */
const PENDING = [{ title: 'Prompt builder', what: "The builder's backend and model, with the environment's lock bits." }];

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
