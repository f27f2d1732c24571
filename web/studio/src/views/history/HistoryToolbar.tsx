import { useEffect, useState } from 'react';
import type { CapabilitiesBody, LaneId } from '../../api/contract';
import { lanesOf } from '../../api/queries';
import { useUi } from '../../store/ui';

const SEARCH_DELAY_MS = 300;

/** Search (words of the prompt), a lane filter, and grouping by session, as the history API offers them. */
export function HistoryToolbar({ capabilities }: { capabilities: CapabilitiesBody | undefined }) {
  const history = useUi((state) => state.history);
  const setHistory = useUi((state) => state.setHistory);
  const [text, setText] = useState(history.q);

  // The listing follows the search box once typing pauses.
  useEffect(() => {
    const timer = setTimeout(() => {
      if (text.trim() !== history.q) setHistory({ q: text.trim(), ...(text.trim() ? { grouped: false } : {}) });
    }, SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [text, history.q, setHistory]);

  const filtered = history.q !== '' || history.provider !== '' || history.session !== undefined;
  return (
    <div className="history-toolbar" role="search">
      <div className="field">
        <label htmlFor="history-search">Search prompts</label>
        <input id="history-search" type="search" value={text} placeholder="fox, sunset…" onChange={(event) => setText(event.target.value)} />
      </div>
      <div className="field">
        <label htmlFor="history-lane">Lane</label>
        <select id="history-lane" value={history.provider} onChange={(event) => setHistory({ provider: event.target.value as LaneId | '', ...(event.target.value ? { grouped: false } : {}) })}>
          <option value="">All lanes</option>
          {lanesOf(capabilities).map((lane) => (
            <option key={lane.id} value={lane.id}>
              {lane.label} ({lane.id})
            </option>
          ))}
        </select>
      </div>
      <div className="field field-check">
        <input id="history-grouped" type="checkbox" checked={history.grouped} disabled={filtered} onChange={(event) => setHistory({ grouped: event.target.checked })} aria-describedby="history-grouped-hint" />
        <label htmlFor="history-grouped">Group by session</label>
        {filtered && (
          <span id="history-grouped-hint" className="hint">
            (clear the filters to group)
          </span>
        )}
      </div>
      {history.session !== undefined && (
        <p className="filter-chip">
          Session: <strong>{history.session ?? 'No session'}</strong>{' '}
          <button type="button" className="ghost" aria-label="Show every session" onClick={() => setHistory({ session: undefined, sessionId: undefined })}>
            ×
          </button>
        </p>
      )}
    </div>
  );
}
