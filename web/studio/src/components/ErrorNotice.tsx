import type { ErrorPayload } from '../api/contract';
import { followLink } from '../router';
import { errorHelp } from './errorHelp';
import { localizeTimes } from './format';

/** An error: what it means, what to do (with a link to Settings when the fix is there), and the server's own words. */
export function ErrorNotice({ error, settingsHash }: { error: ErrorPayload; settingsHash?: string }) {
  const help = errorHelp(error);
  return (
    <div className="error-notice" role="alert" data-code={error.code}>
      <p className="error-meaning">
        <strong>{help.meaning}</strong> <code className="error-code">{error.code}</code>
      </p>
      {help.remedy && (
        <p className="error-remedy">
          {help.remedy}{' '}
          {help.settings && (
            <a href={`/settings${settingsHash ?? ''}`} onClick={followLink}>
              Open Settings
            </a>
          )}
        </p>
      )}
      {error.message !== help.meaning && <p className="error-message">{localizeTimes(error.message)}</p>}
    </div>
  );
}
