import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useLayoutEffect, useRef, useState } from 'react';
import type { ChatMessage } from './contract';
import { useChat, type Item } from './model';
import { RunBubble } from './RunBubble';
import { clock } from './time';
import { Welcome } from './Welcome';

/** Items drawn beyond the visible ones on each side: a long conversation keeps a bounded DOM. */
const OVERSCAN = 12;
/** Within this many pixels of the end, the view follows new output. */
const FOLLOW_SLACK_PX = 80;

const UserBubble = memo(function UserBubble({ message }: { message: ChatMessage }) {
  return (
    <div className="bubble user" data-message-id={message.id}>
      <div className="meta">
        <span className="who">you</span>
        <time dateTime={message.createdAt}>{clock(message.createdAt)}</time>
      </div>
      <div className="user-text">{message.content}</div>
    </div>
  );
});

/** An automatic turn's prompt (a goal's continuation, a PABCD phase): one system line, its instruction folded. */
const AutomaticLine = memo(function AutomaticLine({ message }: { message: ChatMessage }) {
  const [open, setOpen] = useState(false);
  return (
    <details
      className="automatic"
      data-origin={message.automatic?.origin}
      data-message-id={message.id}
      open={open}
      onToggle={(event) => setOpen(event.currentTarget.open)}
    >
      <summary>
        <span className="automatic-badge">{message.automatic?.origin === 'orc' ? 'PABCD' : 'goal'}</span>{' '}
        {message.automatic?.label || 'automatic turn'}
        <time dateTime={message.createdAt}>{clock(message.createdAt)}</time>
      </summary>
      {open && <pre className="automatic-prompt">{message.content}</pre>}
    </details>
  );
});

/** A command's answer: `usage — description` lines (as /help has them) as a table of commands, other lines as they are. */
function CommandOutput({ text }: { text: string }) {
  const lines = text.split('\n');
  const listed = lines.filter((line) => /^\/\S.* — /.test(line));
  if (listed.length === 0 || listed.length < lines.filter(Boolean).length / 2) return <pre className="command-text">{text}</pre>;
  return (
    <dl className="commands">
      {lines.map((line, index) => {
        const split = line.indexOf(' — ');
        if (!line.startsWith('/') || split < 0) return line ? <dd key={index}>{line}</dd> : null;
        return (
          <div key={index}>
            <dt>
              <code>{line.slice(0, split)}</code>
            </dt>
            <dd>{line.slice(split + 3)}</dd>
          </div>
        );
      })}
    </dl>
  );
}

function Row({ item }: { item: Item }) {
  const chat = useChat();
  switch (item.kind) {
    case 'user':
      return <UserBubble message={item.message} />;
    case 'automatic':
      return <AutomaticLine message={item.message} />;
    case 'run': {
      const run = chat.runs.get(item.traceId);
      return run ? <RunBubble run={run} rev={run.rev} /> : null;
    }
    case 'note':
      return (
        <div className={`bubble note${item.tone ? ` ${item.tone}-note` : ''}`}>
          {item.pre ? <CommandOutput text={item.text} /> : item.text}
        </div>
      );
  }
}

/** The shown session's conversation: a virtualized list that follows the end while it is at the end. */
export function Conversation() {
  const chat = useChat();
  const scroller = useRef<HTMLElement>(null);
  const following = useRef(true);
  const items = chat.items;
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => 80,
    overscan: OVERSCAN,
    getItemKey: (index) => items[index].key,
  });

  useLayoutEffect(() => {
    const element = scroller.current;
    if (element && following.current && items.length > 0) {
      virtualizer.scrollToIndex(items.length - 1, { align: 'end' });
      element.scrollTop = element.scrollHeight;
    }
  });

  const onScroll = () => {
    const element = scroller.current;
    if (element) following.current = element.scrollHeight - element.scrollTop - element.clientHeight < FOLLOW_SLACK_PX;
  };

  const empty = chat.ready && items.length === 0;
  return (
    <section id="conversation" className="conversation" ref={scroller} onScroll={onScroll} aria-live="polite">
      {empty ? (
        <Welcome />
      ) : (
        <div className="rows" style={{ height: virtualizer.getTotalSize() }}>
          {virtualizer.getVirtualItems().map((row) => (
            <div
              key={row.key}
              className="row"
              data-index={row.index}
              ref={virtualizer.measureElement}
              style={{ transform: `translateY(${row.start}px)` }}
            >
              <Row item={items[row.index]} />
            </div>
          ))}
        </div>
      )}
    </section>
  );
}
