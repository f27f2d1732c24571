import { useEffect } from 'react';
import { localizeTimes, plural } from '../../components/format';
import type { CapabilitiesBody, LaneCapabilities } from '../../api/contract';
import { lanesOf, statusOf, useCapabilities, useProviders } from '../../api/queries';
import { useUi } from '../../store/ui';
import { STATE_LABELS } from '../classic/laneChoice';

/** What a lane needs to run, in the catalog's terms. */
function credentialOf(lane: LaneCapabilities, capabilities: CapabilitiesBody): string {
  const credential = lane.credential as {
    kind: string;
    namespaces?: string[];
    fileEnv?: string;
    remedy?: string;
    program?: string;
    overrideEnv?: string;
  };
  switch (credential.kind) {
    case 'key':
      return `API key: ${(credential.namespaces ?? []).map((namespace) => capabilities.keyNamespaces[namespace]?.env ?? namespace).join(' or ')}`;
    case 'oauth-session':
      return `Account session (${credential.remedy ?? 'sign in'}; file from ${credential.fileEnv})`;
    case 'binary':
      return `Program ${credential.program} on PATH (or ${credential.overrideEnv})`;
    case 'mcp-server':
      return 'An MCP server';
    default:
      return 'No credential';
  }
}

/** Every lane: its state and why, what it needs, where it goes. */
export function LanesSection() {
  const capabilities = useCapabilities();
  const providers = useProviders();
  const hash = useUi((state) => state.hash);
  const target = hash.startsWith('#lane-') ? hash.slice(1) : undefined;

  // A link such as /settings#lane-api brings that lane into view.
  useEffect(() => {
    if (!target || !providers.data) return;
    const row = document.getElementById(target);
    row?.scrollIntoView({ block: 'center' });
    row?.focus();
  }, [target, providers.data]);

  return (
    <section className="settings-section" aria-labelledby="lanes-title">
      <div className="section-head">
        <h2 id="lanes-title">Lanes</h2>
        <button type="button" className="ghost" onClick={() => void providers.refetch()} disabled={providers.isFetching}>
          {providers.isFetching ? 'Checking…' : 'Check again'}
        </button>
      </div>
      <p className="hint">
        Keys and sessions are read from the environment and config.json; a lane becomes ready as soon as its credential is there.
      </p>
      <ul className="lane-list">
        {lanesOf(capabilities.data).map((lane) => {
          const status = statusOf(providers.data, lane.id);
          const state = status?.state ?? 'unavailable';
          return (
            <li
              key={lane.id}
              id={`lane-${lane.id}`}
              className="lane-row"
              data-state={state}
              data-target={target === `lane-${lane.id}`}
              tabIndex={-1}
            >
              <div className="lane-name">
                <strong>{lane.label}</strong> <code>{lane.id}</code>
                <span className="state-badge" data-state={state}>
                  {STATE_LABELS[state]}
                </span>
              </div>
              <p className="lane-reason">{status?.reason ? localizeTimes(status.reason) : '…'}</p>
              <p className="lane-facts">
                {credentialOf(lane, capabilities.data as CapabilitiesBody)}
                {status?.upstream ? ` · ${status.upstream}` : ''}
                {lane.built ? ` · ${plural(lane.models.length, 'model')}, up to ${plural(lane.maxInputImages, 'input image')}` : ''}
              </p>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
