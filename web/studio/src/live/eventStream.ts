import type { AssetEvent, GenerationEvent, ReplayGapEvent } from '../api/contract';
import { accessToken } from '../api/token';
import { useUi } from '../store/ui';
import { connectEventStream as connectShared, DISCONNECT_NOTICE_MS } from '../../../shared/event-stream';
import { publishStreamEvent, type StreamEvent } from './streamEvents';

// The app's one EventSource on /api/events (web/shared/event-stream.ts, shared
// with the chat page and the manager): on any break it is reopened with
// `?lastEventId=` (the server replays what was missed) after a short backoff;
// a notice shows only when a break outlasts NOTICE_AFTER_MS.

export const NOTICE_AFTER_MS = DISCONNECT_NOTICE_MS;

export interface StreamHandlers {
  onEvent(event: GenerationEvent): void;
  /** Topic `assets`: a saved image's thumbnail is ready, or it did not decode and left history. */
  onAssetEvent(event: AssetEvent): void;
  onGap(gap: ReplayGapEvent): void;
  /** The stream is open; `resumed`: it continues from a cursor (missed events are replayed). */
  onOpen(info: { first: boolean; resumed: boolean }): void;
}

export function connectEventStream(handlers: StreamHandlers): () => void {
  return connectShared({
    token: accessToken,
    onConnection: (state) => useUi.getState().setConnection(state),
    onNotice: (shown) => useUi.getState().setDisconnectNotice(shown),
    onOpen: handlers.onOpen,
    onEvent: (event) => {
      // Every event, whatever its topic, for the views that follow one of their own (streamEvents.ts).
      publishStreamEvent(event as StreamEvent);
      if (event.topic === 'generation') handlers.onEvent(event as unknown as GenerationEvent);
      else if (event.topic === 'assets') handlers.onAssetEvent(event as unknown as AssetEvent);
      else if (event.topic === 'system' && event.event === 'replay_gap') handlers.onGap(event as unknown as ReplayGapEvent);
    },
  });
}
