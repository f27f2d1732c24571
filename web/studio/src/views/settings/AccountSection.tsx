import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import type { SwitchCancelled, SwitchProvider, SwitchRequest, SwitchStarted } from '../../api/contract';
import { api, toErrorPayload } from '../../api/http';
import { laneLabel, queryKeys, useAuthSwitch, useCapabilities, useOauthStatus } from '../../api/queries';
import { ErrorNotice } from '../../components/ErrorNotice';
import { formatTime } from '../../components/format';

/** The accounts a device-code sign-in can switch (the contract's), in the order shown; each is named by its lane. */
const ACCOUNTS: readonly SwitchProvider[] = ['oauth', 'alpha'];

/** The device-code dialog: the code, the link, and the sign-in's state until it ends. */
function SwitchDialog({ started, onClose }: { started: SwitchStarted; onClose: () => void }) {
  const queryClient = useQueryClient();
  const dialog = useRef<HTMLDialogElement>(null);
  const poll = useAuthSwitch(started.sessionId);
  const [copied, setCopied] = useState(false);
  const status = poll.data?.status ?? 'pending';
  const capabilities = useCapabilities();
  const label = `${laneLabel(capabilities.data, started.provider)} account`;

  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
  }, []);

  // Signed in: the lanes, the session and the bars now belong to the new account.
  useEffect(() => {
    if (status !== 'complete') return;
    for (const key of [queryKeys.oauthStatus, queryKeys.quota, queryKeys.providers]) void queryClient.invalidateQueries({ queryKey: key });
  }, [status, queryClient]);

  /** Closing while the code waits cancels the sign-in. */
  const close = () => {
    if (status === 'pending')
      void api<SwitchCancelled>(`/api/auth/switch/${encodeURIComponent(started.sessionId)}`, { method: 'DELETE' }).catch(() => undefined);
    queryClient.removeQueries({ queryKey: queryKeys.authSwitch(started.sessionId) });
    if (dialog.current?.open) dialog.current.close();
    onClose();
  };

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(started.userCode);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  };

  return (
    <dialog
      ref={dialog}
      className="dialog switch-dialog"
      aria-labelledby="switch-title"
      data-status={status}
      onCancel={(event) => {
        event.preventDefault();
        close();
      }}
    >
      <h2 id="switch-title">Switch the {label}</h2>
      <ol className="switch-steps">
        <li>
          Open{' '}
          <a className="switch-link" href={started.verificationUrl} target="_blank" rel="noopener noreferrer">
            {started.verificationUrl}
          </a>{' '}
          (a new tab) and sign in with the account to use.
        </li>
        <li>
          Enter this code:{' '}
          <code className="user-code" aria-label={`Code ${started.userCode.split('').join(' ')}`}>
            {started.userCode}
          </code>{' '}
          <button type="button" className="ghost" onClick={() => void copy()}>
            {copied ? 'Copied' : 'Copy code'}
          </button>
        </li>
      </ol>
      <p className="switch-status" role="status" data-status={status}>
        {status === 'pending' && `Waiting for the code to be approved (it expires ${formatTime(started.expiresAt)})…`}
        {status === 'complete' && `Signed in${poll.data?.email ? ` as ${poll.data.email}` : ''}. The ${label} is switched.`}
        {status === 'expired' && 'The code expired before it was approved. Start again to get a new one.'}
        {status === 'error' && 'The sign-in did not complete.'}
      </p>
      {status === 'error' && poll.data?.error && <ErrorNotice error={poll.data.error} />}
      {poll.error && <ErrorNotice error={toErrorPayload(poll.error)} />}
      <div className="dialog-actions">
        {status === 'pending' ? (
          <button type="button" onClick={close}>
            Cancel sign-in
          </button>
        ) : (
          <button type="button" className="primary" autoFocus onClick={close}>
            Close
          </button>
        )}
      </div>
    </dialog>
  );
}

/** The chat session's status, and switching an account by a device code. */
export function AccountSection() {
  const oauth = useOauthStatus();
  const capabilities = useCapabilities();
  const [started, setStarted] = useState<SwitchStarted>();
  /** The button that opened the dialog: focus goes back to it. */
  const trigger = useRef<HTMLButtonElement | null>(null);
  const start = useMutation({
    mutationFn: (body: SwitchRequest) => api<SwitchStarted>('/api/auth/switch', { method: 'POST', body }),
    onSuccess: setStarted,
  });
  const session = oauth.data;

  return (
    <section className="settings-section" id="accounts" aria-labelledby="accounts-title">
      <h2 id="accounts-title">Accounts</h2>
      {oauth.error && <ErrorNotice error={toErrorPayload(oauth.error)} />}
      {session && (
        <dl className="facts oauth-status" data-present={session.present}>
          <dt>Chat session</dt>
          <dd>
            {session.present ? 'present' : 'none'}
            {session.reason ? ` (${session.reason})` : ''}
          </dd>
          {session.account && (
            <>
              <dt>Account</dt>
              <dd className="oauth-account">
                {session.account.email ?? 'unknown'}
                {session.account.plan ? ` · ${session.account.plan} plan` : ''}
              </dd>
            </>
          )}
          {session.present && (
            <>
              <dt>Expires</dt>
              <dd>
                {session.expiresAt ? formatTime(session.expiresAt) : 'not said'}
                {session.needsRefresh ? ` · ${session.refreshable ? 'refreshed on its next use' : 'needs a new sign-in'}` : ''}
              </dd>
            </>
          )}
          <dt>File</dt>
          <dd>
            <code>{session.file}</code>
          </dd>
        </dl>
      )}
      <p className="hint">Switching signs in with a code you approve in the browser; the lane uses the new account from its next call.</p>
      <div className="form-actions">
        {ACCOUNTS.map((provider) => (
          <button
            key={provider}
            type="button"
            data-provider={provider}
            title={`Sign in to the session the ${provider} lane runs on with another account`}
            onClick={(event) => {
              trigger.current = event.currentTarget;
              // The spec: the UI opens the verification page in a new tab. Opened blank within the click (a
              // later open is a blocked popup), cut from this page, then sent to the page the studio names.
              // The dialog keeps the link, should the browser refuse the tab.
              const tab = window.open('', '_blank');
              if (tab) tab.opener = null;
              start.mutate(
                { provider },
                {
                  onSuccess: (switchStarted) => {
                    if (tab && !tab.closed) tab.location.href = switchStarted.verificationUrl;
                  },
                  onError: () => tab?.close(),
                },
              );
            }}
            disabled={start.isPending}
          >
            Switch {laneLabel(capabilities.data, provider)} account
          </button>
        ))}
      </div>
      {start.error && <ErrorNotice error={toErrorPayload(start.error)} />}
      {started && (
        <SwitchDialog
          key={started.sessionId}
          started={started}
          onClose={() => {
            setStarted(undefined);
            trigger.current?.focus();
          }}
        />
      )}
    </section>
  );
}
