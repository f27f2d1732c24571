import { useEffect, useState } from 'react';
import type { CapabilitiesBody, HistoryKind, LaneId } from '../../api/contract';
import { lanesOf } from '../../api/queries';
import { NO_HISTORY_FILTERS, useUi } from '../../store/ui';
import { activeFilterCount, KIND_GROUPS, KIND_LABELS, modelOptions } from './filters';

const SEARCH_DELAY_MS = 300;

/**
 * Search (words of the prompt), filters by lane, model, kind and date range,
 * and grouping by session, as the history API offers them. On a narrow
 * screen the filters fold behind a "Filters" button.
 */
export function HistoryToolbar({ capabilities }: { capabilities: CapabilitiesBody | undefined }) {
  const history = useUi((state) => state.history);
  const setHistory = useUi((state) => state.setHistory);
  const [text, setText] = useState(history.q);
  const [filtersOpen, setFiltersOpen] = useState(false);

  // The search changed elsewhere (a link, Back, Clear): the box shows it.
  useEffect(() => {
    setText((typed) => (typed.trim() === history.q ? typed : history.q));
  }, [history.q]);

  // The listing follows the search box once typing pauses.
  useEffect(() => {
    const timer = setTimeout(() => {
      if (text.trim() !== history.q) setHistory({ q: text.trim(), ...(text.trim() ? { grouped: false } : {}) });
    }, SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [text, history.q, setHistory]);

  /** Sets one filter; a filter set turns grouping off (the server groups only the full listing). */
  const narrow = (change: Partial<typeof history>) =>
    setHistory({ ...change, ...(Object.values(change).some((value) => value !== '') ? { grouped: false } : {}) });
  const chooseLane = (provider: LaneId | '') => {
    // A model the new lane does not offer would leave nothing to list.
    const keepModel = history.model === '' || modelOptions(capabilities, provider).some((model) => model.id === history.model);
    narrow({ provider, ...(keepModel ? {} : { model: '' }) });
  };
  const clearFilters = () => {
    setText('');
    setHistory({ ...NO_HISTORY_FILTERS });
  };

  const models = modelOptions(capabilities, history.provider);
  if (history.model !== '' && !models.some((model) => model.id === history.model))
    models.unshift({ id: history.model, label: history.model });
  const active = activeFilterCount(history);
  const folded = [history.provider, history.model, history.kind, history.since, history.until].filter((value) => value !== '').length;
  const backwards = history.since !== '' && history.until !== '' && history.since > history.until;
  return (
    <div className="history-toolbar" role="search">
      <div className="field">
        <label htmlFor="history-search">Search prompts</label>
        <input
          id="history-search"
          type="search"
          value={text}
          placeholder="fox, sunset…"
          onChange={(event) => setText(event.target.value)}
        />
      </div>
      <button
        type="button"
        className="filters-toggle"
        aria-expanded={filtersOpen}
        aria-controls="history-filters"
        onClick={() => setFiltersOpen(!filtersOpen)}
      >
        Filters{folded > 0 ? ` (${folded})` : ''}
      </button>
      <div id="history-filters" className="history-filters" data-open={filtersOpen}>
        <div className="field">
          <label htmlFor="history-lane">Lane</label>
          <select id="history-lane" value={history.provider} onChange={(event) => chooseLane(event.target.value as LaneId | '')}>
            <option value="">All lanes</option>
            {lanesOf(capabilities).map((lane) => (
              <option key={lane.id} value={lane.id}>
                {lane.label} ({lane.id})
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="history-model">Model</label>
          <select id="history-model" value={history.model} onChange={(event) => narrow({ model: event.target.value })}>
            <option value="">{history.provider ? `All models of ${history.provider}` : 'All models'}</option>
            {models.map((model) => (
              <option key={model.id} value={model.id}>
                {model.label}
              </option>
            ))}
          </select>
        </div>
        <div className="field field-kind">
          <label htmlFor="history-kind">Kind</label>
          <select id="history-kind" value={history.kind} onChange={(event) => narrow({ kind: event.target.value as HistoryKind | '' })}>
            <option value="">All kinds</option>
            {KIND_GROUPS.map(([label, kinds]) => (
              <optgroup key={label} label={label}>
                {kinds.map((kind) => (
                  <option key={kind} value={kind}>
                    {KIND_LABELS[kind]}
                  </option>
                ))}
              </optgroup>
            ))}
          </select>
        </div>
        <div className="field field-date">
          <label htmlFor="history-since">Made from</label>
          <input
            id="history-since"
            type="date"
            value={history.since}
            max={history.until || undefined}
            onChange={(event) => narrow({ since: event.target.value })}
          />
        </div>
        <div className="field field-date">
          <label htmlFor="history-until">Made to</label>
          <input
            id="history-until"
            type="date"
            value={history.until}
            min={history.since || undefined}
            aria-invalid={backwards || undefined}
            aria-describedby={backwards ? 'history-range-problem' : undefined}
            onChange={(event) => narrow({ until: event.target.value })}
          />
        </div>
        {backwards && (
          <p id="history-range-problem" className="field-problem" role="alert">
            The range ends before it starts.
          </p>
        )}
      </div>
      <div className="field field-check">
        <input
          id="history-grouped"
          type="checkbox"
          checked={history.grouped}
          disabled={active > 0}
          onChange={(event) => setHistory({ grouped: event.target.checked })}
          aria-describedby="history-grouped-hint"
        />
        <label htmlFor="history-grouped">Group by session</label>
        {active > 0 && (
          <span id="history-grouped-hint" className="hint">
            (clear the filters to group)
          </span>
        )}
      </div>
      {history.session !== undefined && (
        <p className="filter-chip">
          Session: <strong>{history.session ?? 'No session'}</strong>{' '}
          <button
            type="button"
            className="ghost"
            aria-label="Show every session"
            onClick={() => setHistory({ session: undefined, sessionId: undefined })}
          >
            ×
          </button>
        </p>
      )}
      {active > 0 && (
        <button type="button" className="ghost clear-filters" onClick={clearFilters}>
          Clear filters
        </button>
      )}
    </div>
  );
}
