import { VIEW_PATHS, followLink } from '../router';

/** A path the app has no page for (a mistyped or old link): says so, with the way back. */
export function NotFoundView({ path }: { path: string }) {
  return (
    <section className="not-found" aria-labelledby="not-found-title">
      <h1 id="not-found-title">Page not found</h1>
      <p>
        The studio has no page at <code>{path}</code>.
      </p>
      <p>
        <a href={VIEW_PATHS.classic} onClick={followLink}>
          Go to Classic
        </a>{' '}
        or{' '}
        <a href={VIEW_PATHS.history} onClick={followLink}>
          open History
        </a>
        .
      </p>
    </section>
  );
}
