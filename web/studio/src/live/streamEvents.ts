import { useEffect, useRef } from 'react';

// Every event of the one /api/events stream, whatever its topic, for views
// that follow a topic of their own (Agent Mode's `agent`, a video's clip
// progress): they subscribe here instead of opening a second stream.

/** An event as the stream carries it: `{ topic, event, ...fields, id }`. */
export interface StreamEvent {
  topic: string;
  event: string;
  id?: string;
  [field: string]: unknown;
}

const listeners = new Set<(event: StreamEvent) => void>();

/** Called by the event stream for each event it receives (a `replay_gap` notice included). */
export function publishStreamEvent(event: StreamEvent): void {
  for (const listener of listeners) listener(event);
}

export function onStreamEvent(listener: (event: StreamEvent) => void): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

/** Follows the stream while the component is mounted; the latest `listener` is always the one called. */
export function useStreamEvents(listener: (event: StreamEvent) => void): void {
  const latest = useRef(listener);
  latest.current = listener;
  useEffect(() => onStreamEvent((event) => latest.current(event)), []);
}
