import type { CapabilitiesBody, ProviderId, ProviderStatus } from '../../api/contract';
import { lanesOf, statusOf } from '../../api/queries';
import { followLink } from '../../router';
import { formatUntil, localizeTimes } from '../../components/format';
import { STATE_LABELS, type LaneChoice } from './laneChoice';

/**
 * The lane picker: every lane of the catalog, ready ones first; lanes that
 * cannot run now are listed too (with why), never hidden.
 */
export function LanePicker({
  capabilities,
  providers,
  choice,
  onChange,
}: {
  capabilities: CapabilitiesBody;
  providers: ProviderStatus[] | undefined;
  choice: LaneChoice;
  onChange(provider: ProviderId): void;
}) {
  const lanes = lanesOf(capabilities);
  const stateOf = (id: string) => statusOf(providers, id)?.state ?? 'unavailable';
  /** "cooling down until 14:05" when the studio knows when the lane is back. */
  const stateLabel = (id: string) => {
    const until = statusOf(providers, id)?.until;
    return stateOf(id) === 'cooling_down' && until ? `${STATE_LABELS.cooling_down} until ${formatUntil(until)}` : STATE_LABELS[stateOf(id)];
  };
  const chosenUntil = choice.lane ? statusOf(providers, choice.lane.id)?.until : undefined;
  const ready = lanes.filter((lane) => stateOf(lane.id) === 'ready');
  const notReady = lanes.filter((lane) => stateOf(lane.id) !== 'ready');
  const settingsLink = `/settings#lane-${choice.lane?.id ?? choice.id}`;
  return (
    <div className="field field-wide">
      <label htmlFor="lane">Lane</label>
      <select id="lane" value={choice.id} onChange={(event) => onChange(event.target.value as ProviderId)} aria-describedby="lane-status">
        <option value="auto">Auto (first ready lane)</option>
        <optgroup label="Ready">
          {ready.map((lane) => (
            <option key={lane.id} value={lane.id}>
              {lane.label} ({lane.id})
            </option>
          ))}
        </optgroup>
        <optgroup label="Not ready">
          {notReady.map((lane) => (
            <option key={lane.id} value={lane.id}>
              {lane.label} ({lane.id}): {stateLabel(lane.id)}
            </option>
          ))}
        </optgroup>
      </select>
      <p id="lane-status" className="lane-status" data-state={choice.state} data-ready={choice.ready}>
        <span className="state-dot" aria-hidden="true" />
        {choice.state !== 'auto' && (
          <strong>
            {choice.state === 'cooling_down' && chosenUntil
              ? `${STATE_LABELS.cooling_down} until ${formatUntil(chosenUntil)}`
              : STATE_LABELS[choice.state]}
            .{' '}
          </strong>
        )}
        <span className="lane-reason">{localizeTimes(choice.reason)}</span>{' '}
        {!choice.ready && (
          <a href={settingsLink} onClick={followLink} className="lane-settings-link">
            Settings
          </a>
        )}
      </p>
    </div>
  );
}
