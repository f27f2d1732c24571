import type { QueueState } from './contract.js';
import type { EventChannel } from '../common/events/channel.js';
import type { DoneEvent, OutputEvent } from './agents/types.js';
import type { GoalSummary } from './goals/goal.js';
import type { OrcState } from './orchestration/phases.js';
import type { ChatMessage } from './store/chat-store.js';

/**
 * Topics of the chat server's public events. `chat` carries one conversation's
 * traffic, `queue` the run queue, `session` which session is current.
 */
export const CHAT_TOPICS = { chat: 'chat', queue: 'queue', session: 'session', goal: 'goal', orc: 'orc' } as const;

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

export type { QueueState };

/** The chat server's publishing side of the shared event channel: one method per public event. */
export class ChatEvents {
  constructor(readonly channel: EventChannel) {}

  /**
   * The spec's `message {id, role, content}`: `id` in the JSON is the saved
   * message's id, while the frame's `id:` line stays the resume cursor.
   * `messageId` repeats it for internal listeners (whose `event.id` is the
   * cursor) and for clients of the first version.
   */
  message(message: ChatMessage): void {
    const { id, role, content, sessionId, traceId, status, reason, agent, automatic } = message;
    this.channel.publish(
      CHAT_TOPICS.chat,
      'message',
      { role, content, messageId: id, sessionId, traceId, status, reason, agent, automatic },
      { payloadId: id },
    );
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

  /** The goal was completed (by `/goal done` or the agent's done marker with evidence). */
  goalDone(goalId: string, sessionId: string): void {
    this.channel.publish(CHAT_TOPICS.goal, 'goal_done', { goalId, sessionId });
  }

  /** A request to complete the goal was refused (no evidence). */
  goalDoneRejected(reason: string, goalId: string, sessionId: string): void {
    this.channel.publish(CHAT_TOPICS.goal, 'goal_done_rejected', { reason, goalId, sessionId });
  }

  /** The agent's output carried a pause marker. */
  goalPauseDetected(reason: string, goalId: string, sessionId: string): void {
    this.channel.publish(CHAT_TOPICS.goal, 'goal_pause_detected', { reason, goalId, sessionId });
  }

  /** The armed pause gate held through a continuation turn: automatic continuation stops. */
  goalPauseGatePending(reason: string, goalId: string, sessionId: string): void {
    this.channel.publish(CHAT_TOPICS.goal, 'goal_pause_gate_pending', { reason, goalId, sessionId });
  }

  /** Our addition: the current goal after any change (null when none), for pages and the manager. */
  goalUpdate(goal: GoalSummary | null): void {
    this.channel.publish(CHAT_TOPICS.goal, 'goal_update', { goal });
  }

  /** PABCD orchestration: every transition and every phase turn's end. */
  orcState(state: OrcState): void {
    const { phase, status, ...rest } = state;
    this.channel.publish(CHAT_TOPICS.orc, 'orc_state', { phase, status, ...rest });
  }
}
