import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useRef, useState, type ChangeEvent, type FormEvent } from 'react';
import type { ApiKeyNamespace, CloudKeySaveRequest, KeyChangeBody, KeySaveRequest, KeysStatusBody, KeyStatus } from '../../api/contract';
import { api, toErrorPayload } from '../../api/http';
import { keyUse, queryKeys, useCapabilities, useKeysStatus, verifyKeys } from '../../api/queries';
import { ErrorNotice } from '../../components/ErrorNotice';
import { formatTime } from '../../components/format';

type ManagedNamespace = ApiKeyNamespace | 'cloud';

/** The keys with routes, in the order shown (what each is for comes from the catalog: the lane whose credential it is). */
const MANAGED: readonly ManagedNamespace[] = ['omni', 'alpha', 'beta', 'cloud'];

const SOURCE_LABELS: Record<KeyStatus['source'], string> = {
  env: 'from the environment',
  config: 'saved in config.json',
  demo: "the demo's placeholder",
  none: 'not set',
};

/** The verdict in words: valid, invalid, or unchecked with when the key last got one. */
function verdictText(status: KeyStatus): string {
  if (!status.set) return 'not set';
  if (status.valid === 'unchecked') {
    const last = status.checkedAt
      ? `last checked ${formatTime(status.checkedAt)}${status.lastVerdict ? ` (${status.lastVerdict})` : ''}`
      : 'never checked';
    return `unchecked, ${last}`;
  }
  return `${status.valid}${status.checkedAt ? `, checked ${formatTime(status.checkedAt)}` : ''}`;
}

function KeyFacts({ status }: { status: KeyStatus }) {
  return (
    <>
      <p className="key-facts">
        {status.masked ? <code className="key-masked">{status.masked}</code> : <span className="muted">no key</span>}{' '}
        <span className="source" data-source={status.source}>
          {SOURCE_LABELS[status.source]}
        </span>
        {status.env && (
          <>
            {' '}
            · <code>{status.env}</code>
          </>
        )}
      </p>
      {(status.projectId || status.clientEmail) && (
        <p className="key-facts">
          Project <code>{status.projectId ?? '?'}</code> · <code>{status.clientEmail ?? '?'}</code>
        </p>
      )}
      {status.reason && <p className="hint key-reason">{status.reason}</p>}
    </>
  );
}

function VerdictBadge({ status }: { status: KeyStatus }) {
  return (
    <span className="state-badge key-verdict" data-valid={status.set ? status.valid : 'none'}>
      {verdictText(status)}
    </span>
  );
}

/** Saves a new key: a password field (never shown back), or a service-account file for cloud. */
function KeyForm({ namespace, onDone }: { namespace: ManagedNamespace; onDone: (body: KeyChangeBody) => void }) {
  const id = useId();
  const [apiKey, setApiKey] = useState('');
  const [account, setAccount] = useState('');
  const [fileName, setFileName] = useState<string>();
  const fileInput = useRef<HTMLInputElement>(null);
  const save = useMutation({
    mutationFn: (body: KeySaveRequest | CloudKeySaveRequest) => api<KeyChangeBody>(`/api/keys/${namespace}`, { method: 'PUT', body }),
    onSuccess: (body) => {
      setApiKey('');
      setAccount('');
      setFileName(undefined);
      if (fileInput.current) fileInput.current.value = '';
      onDone(body);
    },
  });

  const readFile = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    if (!file) return;
    setAccount(await file.text());
    setFileName(file.name);
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (namespace === 'cloud') save.mutate({ serviceAccountJson: account });
    else save.mutate({ apiKey });
  };

  const empty = namespace === 'cloud' ? account.trim() === '' : apiKey.trim() === '';
  return (
    <form className="key-form" onSubmit={submit} aria-label={`Set the ${namespace} key`}>
      {namespace === 'cloud' ? (
        <>
          <div className="field">
            <label htmlFor={`${id}-file`}>Service account key file (JSON)</label>
            <input
              ref={fileInput}
              id={`${id}-file`}
              type="file"
              accept="application/json,.json"
              onChange={(event) => void readFile(event)}
            />
          </div>
          <div className="field">
            <label htmlFor={`${id}-json`}>or paste it</label>
            <textarea
              id={`${id}-json`}
              rows={3}
              spellCheck={false}
              autoComplete="off"
              value={fileName ? '' : account}
              placeholder={fileName ? `${fileName} (${account.length} characters) read` : '{ "type": "service_account", … }'}
              onChange={(event) => {
                setFileName(undefined);
                setAccount(event.target.value);
              }}
            />
          </div>
        </>
      ) : (
        <div className="field">
          <label htmlFor={`${id}-key`}>New {namespace} key</label>
          <input
            id={`${id}-key`}
            type="password"
            autoComplete="off"
            spellCheck={false}
            value={apiKey}
            onChange={(event) => setApiKey(event.target.value)}
          />
        </div>
      )}
      <div className="form-actions">
        <button type="submit" className="primary" disabled={empty || save.isPending}>
          {save.isPending ? 'Checking…' : 'Check and save'}
        </button>
      </div>
      <p className="hint">The studio checks it with the vendor first; nothing is saved unless the vendor takes it.</p>
      {save.error && <ErrorNotice error={toErrorPayload(save.error)} />}
    </form>
  );
}

/** One of the four keys with routes: status, set, remove (a key from the environment is locked). */
function ManagedKeyRow({
  namespace,
  status,
  onChange,
}: {
  namespace: ManagedNamespace;
  status: KeyStatus;
  onChange: (body: KeyChangeBody) => void;
}) {
  const capabilities = useCapabilities();
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [saved, setSaved] = useState(false);
  const formId = useId();
  const remove = useMutation({
    mutationFn: () => api<KeyChangeBody>(`/api/keys/${namespace}`, { method: 'DELETE' }),
    onSuccess: (body) => {
      setConfirming(false);
      setSaved(false);
      onChange(body);
    },
  });
  const locked = status.source === 'env';

  return (
    <li className="key-row" id={`key-${namespace}`} data-namespace={namespace} data-source={status.source} data-valid={status.valid}>
      <div className="lane-name">
        <strong>{namespace}</strong>
        <span className="muted">{keyUse(capabilities.data, namespace)}</span>
        <VerdictBadge status={status} />
        {locked && (
          <span className="state-badge key-locked" title={`Set by ${status.env} in the environment`}>
            locked
          </span>
        )}
      </div>
      <KeyFacts status={status} />
      {locked ? (
        <p className="hint">
          Set by <code>{status.env}</code> in the studio&apos;s environment: change or unset it there and restart the studio.
        </p>
      ) : (
        <>
          <div className="form-actions">
            <button type="button" aria-expanded={editing} aria-controls={formId} onClick={() => setEditing(!editing)}>
              {editing ? 'Close' : status.source === 'none' ? `Set ${namespace} key` : `Replace ${namespace} key`}
            </button>
            {status.source === 'config' &&
              (confirming ? (
                <>
                  <span>Remove the saved {namespace} key?</span>
                  <button type="button" className="danger" onClick={() => remove.mutate()} disabled={remove.isPending}>
                    Remove
                  </button>
                  <button type="button" className="ghost" onClick={() => setConfirming(false)}>
                    Keep it
                  </button>
                </>
              ) : (
                <button type="button" className="danger key-remove" onClick={() => setConfirming(true)}>
                  Remove {namespace} key
                </button>
              ))}
            {saved && !editing && (
              <span className="hint" role="status">
                Saved: {status.masked}
              </span>
            )}
          </div>
          <div id={formId} hidden={!editing}>
            {editing && (
              <KeyForm
                namespace={namespace}
                onDone={(body) => {
                  setEditing(false);
                  setSaved(true);
                  onChange(body);
                }}
              />
            )}
          </div>
          {remove.error && <ErrorNotice error={toErrorPayload(remove.error)} />}
        </>
      )}
    </li>
  );
}

/** The API keys: masked, where each comes from, and the vendor's verdict; set, verify, remove. */
export function KeysSection() {
  const queryClient = useQueryClient();
  const capabilities = useCapabilities();
  const keys = useKeysStatus();
  const verify = useMutation({ mutationFn: verifyKeys, onSuccess: (body) => queryClient.setQueryData(queryKeys.keysStatus, body) });
  const body = keys.data;

  /** A save or removal: its answer in the cache at once, then everything a key changes read again. */
  const changed = (change: KeyChangeBody) => {
    const { provider, removed: _removed, ...status } = change;
    queryClient.setQueryData<KeysStatusBody>(queryKeys.keysStatus, (current) =>
      current && provider in MANAGED ? { ...current, [provider]: status } : current,
    );
    void queryClient.invalidateQueries({ queryKey: queryKeys.keysStatus });
    void queryClient.invalidateQueries({ queryKey: queryKeys.providers });
  };

  return (
    <section className="settings-section" id="keys" aria-labelledby="keys-title" aria-busy={keys.isPending || verify.isPending}>
      <div className="section-head">
        <h2 id="keys-title">Keys</h2>
        <button type="button" className="ghost" onClick={() => verify.mutate()} disabled={verify.isPending}>
          {verify.isPending ? 'Verifying…' : 'Verify'}
        </button>
      </div>
      <p className="hint">Keys are never shown in full. A key set in the environment wins over a saved one and cannot be changed here.</p>
      {keys.error && <ErrorNotice error={toErrorPayload(keys.error)} />}
      {verify.error && <ErrorNotice error={toErrorPayload(verify.error)} />}
      {body && (
        <>
          <ul className="lane-list key-list">
            {MANAGED.map((namespace) => (
              <ManagedKeyRow key={namespace} namespace={namespace} status={body[namespace]} onChange={changed} />
            ))}
          </ul>
          {body.betaAuthMode.effective && (
            <p className="hint">
              beta-api signs in with {body.betaAuthMode.effective === 'cloud' ? 'the service account' : 'the API key'}
              {body.betaAuthMode.saved ? ` (saved choice: ${body.betaAuthMode.saved})` : ''}.
            </p>
          )}
          <h3 className="sub-title">Other lanes&apos; keys</h3>
          <p className="hint">Set with their environment variable or under &quot;keys&quot; in config.json.</p>
          <ul className="lane-list key-list">
            {/* The other lanes' keys: shown, set through the environment or config.json only. */}
            {Object.entries(body.otherKeys).map(([namespace, status]) => {
              return (
                <li
                  key={namespace}
                  className="key-row"
                  id={`key-${namespace}`}
                  data-namespace={namespace}
                  data-source={status.source}
                  data-valid={status.valid}
                >
                  <div className="lane-name">
                    <strong>{namespace}</strong>
                    <span className="muted">{keyUse(capabilities.data, namespace)}</span>
                    <VerdictBadge status={status} />
                  </div>
                  <KeyFacts status={status} />
                </li>
              );
            })}
          </ul>
        </>
      )}
    </section>
  );
}
