import { useState, type FormEvent } from 'react';
import type { AgentSessionBody } from '../../api/contract';
import { AGENT_LIMITS } from '../../api/contract';

/** The session's locks (text kept in every image prompt) and its web search switch; the lane is changed with /lane. */
export function SessionSettings({ session, onSave }: { session: AgentSessionBody; onSave(body: Record<string, unknown>): Promise<void> }) {
  const [styleLock, setStyleLock] = useState(session.styleLock ?? '');
  const [subjectLock, setSubjectLock] = useState(session.subjectLock ?? '');
  const changed = styleLock !== (session.styleLock ?? '') || subjectLock !== (session.subjectLock ?? '');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void onSave({ styleLock: styleLock.trim() || null, subjectLock: subjectLock.trim() || null });
  };
  return (
    <details className="agent-settings">
      <summary>
        Session: lane {session.settings.provider ?? 'auto'}
        {session.settings.model ? ` / ${session.settings.model}` : ''}
        {session.webSearch ? ', web search' : ''}
        {session.styleLock || session.subjectLock ? ', locks set' : ''}
      </summary>
      <form onSubmit={submit}>
        <p className="hint">Change the lane with /lane &lt;lane&gt;[/&lt;model&gt;].</p>
        <label className="agent-search">
          <input type="checkbox" checked={session.webSearch} onChange={(event) => void onSave({ webSearch: event.target.checked })} /> Web
          search while planning
        </label>
        <label htmlFor="agent-style-lock">Style lock</label>
        <input
          id="agent-style-lock"
          value={styleLock}
          maxLength={AGENT_LIMITS.lockMaxChars}
          placeholder="watercolour, soft light"
          onChange={(event) => setStyleLock(event.target.value)}
        />
        <label htmlFor="agent-subject-lock">Subject lock</label>
        <input
          id="agent-subject-lock"
          value={subjectLock}
          maxLength={AGENT_LIMITS.lockMaxChars}
          placeholder="a red fox with a white-tipped tail"
          onChange={(event) => setSubjectLock(event.target.value)}
        />
        <button type="submit" disabled={!changed}>
          Save locks
        </button>
      </form>
    </details>
  );
}
