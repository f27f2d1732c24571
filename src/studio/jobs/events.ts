import type { EventBus } from '../../common/events/types.js';
import { GENERATION_TOPIC, type GenerationEventName, type GenerationEventPayload } from '../api/index.js';
import type { EventOutbox } from '../event-bus.js';
import type { EndEvent } from './job-store.js';

/**
 * The publishing side of the generation events: one method per event, typed
 * by the API contract, so a payload cannot drift from what clients read.
 * `b64` of a partial never enters the replay buffer, and is made only for a live listener.
 * A job's terminal event (`done`, `error`) is not published here: it is prepared for the store,
 * which writes it with the job's end (JobEnd.event).
 */
export class GenerationEvents {
  constructor(
    private readonly channel: EventBus,
    private readonly outbox: EventOutbox,
    /** A team's studio names itself on every event (so a client of any studio sees which one ran the job); an embedded one does not. */
    private readonly instance?: string,
  ) {}

  /** The payload as sent: with `instance` in team mode, untouched (not copied) when embedded. */
  private stamped<P extends object>(payload: P): P {
    return this.instance === undefined ? payload : { ...payload, instance: this.instance };
  }

  private publish<E extends GenerationEventName>(event: E, payload: GenerationEventPayload<E>, transientFields?: readonly string[]): void {
    this.channel.publish(GENERATION_TOPIC, event, this.stamped(payload), transientFields ? { transientFields } : undefined);
  }

  phase(payload: GenerationEventPayload<'phase'>): void {
    this.publish('phase', payload);
  }

  progress(payload: GenerationEventPayload<'progress'>): void {
    this.publish('progress', payload);
  }

  /**
   * With nobody to receive it live, the event is published as its replayed copy would be
   * (`omitted: ['b64']`) and the image's base64 is never made: a partial is hundreds of KB of text.
   */
  partial(payload: Omit<GenerationEventPayload<'partial'>, 'b64' | 'omitted'>, b64: () => string): void {
    if (!this.channel.hasAudience) this.publish('partial', { ...payload, omitted: ['b64'] });
    else this.publish('partial', { ...payload, b64: b64() }, ['b64']);
  }

  slotDone(payload: GenerationEventPayload<'slot_done'>): void {
    this.publish('slot_done', payload);
  }

  slotError(payload: GenerationEventPayload<'slot_error'>): void {
    this.publish('slot_error', payload);
  }

  planning(payload: GenerationEventPayload<'planning'>): void {
    this.publish('planning', payload);
  }

  submitted(payload: GenerationEventPayload<'submitted'>): void {
    this.publish('submitted', payload);
  }

  done(payload: GenerationEventPayload<'done'>): EndEvent {
    return this.outbox.prepare(GENERATION_TOPIC, 'done', this.stamped(payload));
  }

  error(payload: GenerationEventPayload<'error'>): EndEvent {
    return this.outbox.prepare(GENERATION_TOPIC, 'error', this.stamped(payload));
  }
}
