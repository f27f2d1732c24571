// One EventSource on a server's `/api/events`, as the spec's client behaviour
// asks: on any break it is closed and reopened here with `?lastEventId=` (the
// resume cursor; the server replays what was missed) after a short, doubling
// delay, so a network cut and a refused reconnect (503) are handled alike. A
// break shorter than DISCONNECT_NOTICE_MS recovers silently; only a longer one
// raises the notice. Shared by the studio, the chat page and the manager.
import { withToken } from './token';

/** Spec (Limits): the client's disconnect notice threshold. */
export const DISCONNECT_NOTICE_MS = 8000;
const RECONNECT_FIRST_MS = 500;
const RECONNECT_MAX_MS = 4000;

export type ConnectionState = 'connecting' | 'open' | 'reconnecting';

/** Every event of the channel carries these two (the stream is data-only). */
export interface ChannelEvent {
  topic: string;
  event: string;
  [field: string]: unknown;
}

export interface EventStreamOptions {
  /** Default `/api/events`. */
  path?: string;
  token?: string;
  onEvent(event: ChannelEvent): void;
  /** The stream is open; `resumed`: it continues from a cursor (missed events are replayed). */
  onOpen?(info: { first: boolean; resumed: boolean }): void;
  onConnection?(state: ConnectionState): void;
  /** The disconnect notice: shown after a long break, hidden when the stream opens again. */
  onNotice?(shown: boolean): void;
}

/** Counters on <body data-*> that say what the connection did (read by the browser tests). */
function count(name: 'reconnects' | 'noticeShown' | 'replayGaps'): void {
  document.body.dataset[name] = String(Number(document.body.dataset[name] ?? 0) + 1);
}

/** Follows the stream until the returned function is called. */
export function connectEventStream(options: EventStreamOptions): () => void {
  let source: EventSource | undefined;
  let lastEventId: string | undefined;
  let attempts = 0;
  let opened = false;
  let broken = false;
  let noticeTimer: ReturnType<typeof setTimeout> | undefined;
  let reconnectTimer: ReturnType<typeof setTimeout> | undefined;

  const setConnection = (state: ConnectionState) => {
    document.body.dataset.connection = state;
    options.onConnection?.(state);
  };

  const onBreak = () => {
    if (!broken) {
      broken = true;
      noticeTimer = setTimeout(() => {
        count('noticeShown');
        options.onNotice?.(true);
      }, DISCONNECT_NOTICE_MS);
    }
    setConnection('reconnecting');
  };

  const connect = () => {
    const resumed = lastEventId !== undefined;
    const url = new URL(withToken(options.path ?? '/api/events', options.token), window.location.origin);
    if (lastEventId) url.searchParams.set('lastEventId', lastEventId);
    const stream = new EventSource(url);
    source = stream;
    stream.onopen = () => {
      clearTimeout(noticeTimer);
      noticeTimer = undefined;
      broken = false;
      attempts = 0;
      options.onNotice?.(false);
      setConnection('open');
      const first = !opened;
      opened = true;
      options.onOpen?.({ first, resumed });
    };
    stream.onmessage = (message: MessageEvent<string>) => {
      if (message.lastEventId) lastEventId = message.lastEventId;
      let event: ChannelEvent;
      try {
        event = JSON.parse(message.data) as ChannelEvent;
      } catch {
        return;
      }
      if (typeof event !== 'object' || event === null || typeof event.event !== 'string') return;
      if (event.topic === 'system' && event.event === 'replay_gap') count('replayGaps');
      options.onEvent(event);
    };
    stream.onerror = () => {
      stream.close();
      if (source !== stream) return;
      onBreak();
      const delay = Math.min(RECONNECT_FIRST_MS * 2 ** attempts, RECONNECT_MAX_MS);
      attempts += 1;
      count('reconnects');
      clearTimeout(reconnectTimer);
      reconnectTimer = setTimeout(connect, delay);
    };
  };

  setConnection('connecting');
  connect();
  return () => {
    clearTimeout(noticeTimer);
    clearTimeout(reconnectTimer);
    source?.close();
    source = undefined;
  };
}
