import type { EventBus } from '../../common/events/types.js';
import { AGENT_TOPIC, type AgentEventName, type AgentEventPayload } from '../api/index.js';

/** Publishes Agent Mode's events (topic `agent`), typed by the contract (api/agent.ts). */
export class AgentEvents {
  constructor(private readonly bus: EventBus) {}

  private publish<E extends AgentEventName>(event: E, payload: AgentEventPayload<E>): void {
    this.bus.publish(AGENT_TOPIC, event, payload);
  }

  /** A queue item's state changed (queued, running, succeeded, failed, cancelled). */
  item(payload: AgentEventPayload<'item'>): void {
    this.publish('item', payload);
  }

  /** A running item's step: planning, planned (the decision), generating (a variant), saved. */
  progress(payload: AgentEventPayload<'progress'>): void {
    this.publish('progress', payload);
  }

  /** The session's current image changed (a turn's image, set by PATCH, or /undo). */
  currentImage(payload: AgentEventPayload<'current_image'>): void {
    this.publish('current_image', payload);
  }
}
