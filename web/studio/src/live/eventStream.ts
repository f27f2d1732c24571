import type { AssetEvent, GenerationEvent, ReplayGapEvent } from '../api/contract';
import { accessToken } from '../api/token';
import { useUi } from '../store/ui';

// The app's one EventSource on /api/events. On any break it is closed and
// reopened here with `?lastEventId=` (the resume cursor; the server replays
// what was missed), with a short backoff, so a network cut and a refused
// reconnect are handled alike. A notice shows only when a break outlasts
// NOTICE_AFTER_MS: short breaks are resumed silently.

export const NOTICE_AFTER_MS = 8000;
const RECONNECT_FIRST_MS = 500;
const RECONNECT_MAX_MS = 4000;

export interface StreamHandlers {
  onEvent(event: GenerationEvent): void;
  /** Topic `assets`: a saved image's thumbnail is ready, or it did not decode and left history. */
  onAssetEvent(event: AssetEvent): void;
  onGap(gap: ReplayGapEvent): void;
  /** The stream is open; `resumed`: it continues from a cursor (missed events are replayed). */
  onOpen(info: { first: boolean; resumed: boolean }): void;
}

/** Counters on <body data-*> that say what the connection did (read by the browser tests). */
function count(name: 'reconnects' | 'noticeShown' | 'replayGaps'): void {
  document.body.dataset[name] = String(Number(document.body.dataset[name] ?? 0) + 1);
}

export function connectEventStream(handlers: StreamHandlers): () => void {
  const ui = useUi.getState();
  let source: EventSource | undefined;
  let lastEventId: string | undefined;
  let attempts = 0;
  let opened = false;
  let brokenSince: number | undefined;
  let noticeTimer: ReturnType<typeof setTimeout> | undefined;
  let reconnectTimer: ReturnType<typeof setTimeout> | undefined;

  const setConnection = (state: 'connecting' | 'open' | 'reconnecting') => {
    document.body.dataset.connection = state;
    ui.setConnection(state);
  };

  const onBreak = () => {
    if (brokenSince === undefined) {
      brokenSince = Date.now();
      noticeTimer = setTimeout(() => {
        count('noticeShown');
        useUi.getState().setDisconnectNotice(true);
      }, NOTICE_AFTER_MS);
    }
    setConnection('reconnecting');
  };

  const connect = () => {
    const url = new URL('/api/events', window.location.origin);
    const resumed = lastEventId !== undefined;
    if (lastEventId) url.searchParams.set('lastEventId', lastEventId);
    // EventSource cannot send headers (the server's request log masks a `token` parameter).
    if (accessToken) url.searchParams.set('token', accessToken);
    const stream = new EventSource(url);
    source = stream;
    stream.onopen = () => {
      clearTimeout(noticeTimer);
      brokenSince = undefined;
      attempts = 0;
      useUi.getState().setDisconnectNotice(false);
      setConnection('open');
      const first = !opened;
      opened = true;
      handlers.onOpen({ first, resumed });
    };
    stream.onmessage = (message: MessageEvent<string>) => {
      if (message.lastEventId) lastEventId = message.lastEventId;
      let event: { topic?: unknown; event?: unknown };
      try {
        event = JSON.parse(message.data) as typeof event;
      } catch {
        return;
      }
      if (event.topic === 'generation') handlers.onEvent(event as GenerationEvent);
      else if (event.topic === 'assets') handlers.onAssetEvent(event as AssetEvent);
      else if (event.topic === 'system' && event.event === 'replay_gap') {
        count('replayGaps');
        handlers.onGap(event as ReplayGapEvent);
      }
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
