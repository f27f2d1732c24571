import { useUi } from '../store/ui';

const LABELS = { connecting: 'Connecting…', open: 'Live', reconnecting: 'Reconnecting…' } as const;

/** The small live/reconnecting badge of the top bar. */
export function ConnectionBadge() {
  const connection = useUi((state) => state.connection);
  return (
    <span className="connection-badge" data-state={connection} role="status" title="Progress events from the studio">
      {LABELS[connection]}
    </span>
  );
}

/** Shown only when the event stream has been broken for longer than the threshold (short breaks resume silently). */
export function DisconnectNotice() {
  const shown = useUi((state) => state.disconnectNotice);
  if (!shown) return null;
  return (
    <div id="disconnect-notice" className="banner banner-warning" role="alert">
      Lost the connection to the studio. Reconnecting… Live progress resumes, with what was missed, once it is back.
    </div>
  );
}

export function TokenNotice() {
  const required = useUi((state) => state.tokenRequired);
  if (!required) return null;
  return (
    <div className="banner banner-error" role="alert">
      This studio needs its access token. Open the page as <code>/#token=&lt;SVC_TOKEN&gt;</code>.
    </div>
  );
}
