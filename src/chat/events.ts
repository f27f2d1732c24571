import type { EventChannel } from '../common/events/channel.js';
import type { DoneEvent, OutputEvent } from './agents/types.js';
import type { ChatMessage } from './store/chat-store.js';

/**
 * Topics of the chat server's public events. `chat` carries one conversation's
 * traffic, `queue` the run queue, `session` which session is current.
 */
export const CHAT_TOPICS = { chat: 'chat', queue: 'queue', session: 'session' } as const;

/**
 * Text published per event, in UTF-8 bytes. The channel drops fields over 4 KiB
 * from its replay copies; smaller pieces keep long answers resumable.
 */
const OUTPUT_PIECE_BYTES = 2048;

/** Cuts text into pieces of at most `maxBytes` UTF-8 bytes without splitting a character. */
export function splitUtf8(text: string, maxBytes: number): string[] {
  if (Buffer.byteLength(text) <= maxBytes) return [text];
  const pieces: string[] = [];
  let piece = '';
  let bytes = 0;
  for (const character of text) {
    const size = Buffer.byteLength(character);
    if (bytes + size > maxBytes && piece) {
      pieces.push(piece);
      piece = '';
      bytes = 0;
    }
    piece += character;
    bytes += size;
  }
  if (piece) pieces.push(piece);
  return pieces;
}

export interface QueueState {
  pending: number;
  active: boolean;
  /** The running run's trace id. */
  activeTraceId?: string;
}

/** The chat server's publishing side of the shared event channel: one method per public event. */
export class ChatEvents {
  constructor(readonly channel: EventChannel) {}

  /**
   * The channel owns every event's `id` (the resume cursor), so the saved
   * message's own id travels as `messageId`; the spec's `id` of a `message`
   * event is that event's id, unique per message.
   */
  message(message: ChatMessage): void {
    const { id, role, content, sessionId, traceId, status, reason, agent } = message;
    this.channel.publish(CHAT_TOPICS.chat, 'message', { messageId: id, role, content, sessionId, traceId, status, reason, agent });
  }

  /** `agent_output` (text), `agent_thinking` (our addition: reasoning text) or `agent_tool`. */
  output(sessionId: string, traceId: string, event: OutputEvent): void {
    if (event.type === 'tool') {
      this.channel.publish(CHAT_TOPICS.chat, 'agent_tool', { sessionId, traceId, name: event.name, input: event.input });
      return;
    }
    const name = event.type === 'text' ? 'agent_output' : 'agent_thinking';
    for (const content of splitUtf8(event.content, OUTPUT_PIECE_BYTES)) {
      this.channel.publish(CHAT_TOPICS.chat, name, { sessionId, traceId, content });
    }
  }

  done(sessionId: string, traceId: string, done: DoneEvent): void {
    this.channel.publish(CHAT_TOPICS.chat, 'agent_done', { sessionId, traceId, status: done.status, reason: done.reason });
  }

  steerStarted(sessionId: string, traceId: string, prompt: string): void {
    this.channel.publish(CHAT_TOPICS.chat, 'steer_started', { sessionId, traceId, prompt });
  }

  queue(sessionId: string, state: QueueState): void {
    this.channel.publish(CHAT_TOPICS.queue, 'queue_update', { sessionId, ...state });
  }

  sessionSwitched(sessionId: string): void {
    this.channel.publish(CHAT_TOPICS.session, 'session_switched', { sessionId });
  }
}
