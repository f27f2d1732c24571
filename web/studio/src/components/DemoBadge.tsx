import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../api/http';
import './demo-badge.css';

/** GET /api/demo: the simulators' prompt triggers and the rejected-key rule (an addition of this studio, demo mode only). */
interface DemoGuide {
  syntax: string;
  triggers: Record<string, string[]>;
  rejectedKey: { contains: string; rule: string };
}

/** The demo badge: opens what the demo can be made to do (its error paths), read from the simulators' own lists. */
export function DemoBadge() {
  const [open, setOpen] = useState(false);
  const guide = useQuery({ queryKey: ['demo-guide'], queryFn: () => api<DemoGuide>('/api/demo'), staleTime: Infinity, enabled: open });
  return (
    <span className="demo-badge-wrap">
      <button
        type="button"
        className="demo-badge"
        aria-expanded={open}
        aria-controls="demo-guide"
        title="Simulated upstreams: no keys, nothing billed"
        onClick={() => setOpen(!open)}
      >
        demo
      </button>
      {open && (
        <div id="demo-guide" className="demo-guide" role="dialog" aria-label="What the demo can do">
          <p>
            Every lane runs against a simulator: no keys needed, nothing billed. To see an error path, write a trigger in the prompt:{' '}
            <code>{guide.data?.syntax ?? '[sim:<name>]'}</code>, for example <code>[sim:moderation] a fox</code>.
          </p>
          {guide.data && (
            <>
              <p className="demo-rejected" data-contains={guide.data.rejectedKey.contains}>
                {guide.data.rejectedKey.rule}
              </p>
              <dl className="demo-triggers">
                {Object.entries(guide.data.triggers).map(([lanes, names]) => (
                  <div key={lanes}>
                    <dt>{lanes}</dt>
                    <dd>
                      {names.map((name) => (
                        <code key={name}>[sim:{name}]</code>
                      ))}
                    </dd>
                  </div>
                ))}
              </dl>
            </>
          )}
          {guide.isPending && <p className="hint">Loading…</p>}
          <button type="button" className="ghost" onClick={() => setOpen(false)}>
            Close
          </button>
        </div>
      )}
    </span>
  );
}
