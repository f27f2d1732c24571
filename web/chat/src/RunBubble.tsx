import { memo, useState } from 'react';
import { Markdown } from './Markdown';
import type { RunView, ToolCall } from './model';
import { clock } from './time';

const STATUS_LABELS: Readonly<Record<string, string>> = { waiting: 'waiting…', running: 'running…', ok: '' };

/** A tool input's one-line gist: its command or query when it has one, else its JSON. */
function gist(input: unknown): string {
  if (!input || typeof input !== 'object') return '';
  const fields = input as Record<string, unknown>;
  const main = fields.command ?? fields.query ?? fields.file_path ?? fields.path ?? fields.pattern ?? fields.url;
  return String(main ?? JSON.stringify(input)).slice(0, 200);
}

/** A tool call as a card: name and gist; its full input shows when opened. */
function ToolCard({ tool }: { tool: ToolCall }) {
  const [open, setOpen] = useState(false);
  const summary = gist(tool.input);
  return (
    <li className="tool">
      <details open={open} onToggle={(event) => setOpen(event.currentTarget.open)}>
        <summary>
          <span className="tool-name">{tool.name}</span>
          {summary ? ` ${summary}` : ''}
        </summary>
        {open && <pre className="tool-input">{JSON.stringify(tool.input, null, 2)}</pre>}
      </details>
    </li>
  );
}

/** One run: its agent and time, folded thinking, tool cards, the answer (growing in place while it streams), its status. */
export const RunBubble = memo(function RunBubble({ run }: { run: RunView; rev: number }) {
  const label = STATUS_LABELS[run.status] ?? `${run.status}${run.reason ? `: ${run.reason}` : ''}`;
  return (
    <div className="bubble run" data-trace-id={run.traceId} data-status={run.status} data-message-id={run.messageId}>
      <div className="meta">
        <span className="who">{run.agent ?? 'agent'}</span>
        {run.at && <time dateTime={run.at}>{clock(run.at)}</time>}
      </div>
      {run.thinking && (
        <details className="thinking">
          <summary>Thinking</summary>
          <div className="thinking-text">{run.thinking}</div>
        </details>
      )}
      {run.tools.length > 0 && (
        <ul className="tools">
          {run.tools.map((tool, index) => (
            <ToolCard key={index} tool={tool} />
          ))}
        </ul>
      )}
      <div className="text">{run.text ? <Markdown text={run.text} /> : null}</div>
      <span className="status">{label}</span>
    </div>
  );
});
