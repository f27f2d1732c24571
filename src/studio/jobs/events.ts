import type { ErrorBody } from '../../common/errors.js';
import type { StudioContext } from '../context.js';
import type { JobPhase } from '../lanes/types.js';
import type { ImageFormat } from '../catalog/controls.js';

// What every generation job publishes on the shared channel (topic
// `generation`), and so what `/api/events` and per-request SSE carry. Each
// requestId ends with exactly one `done` or `error`; multimode slots report
// with `slot_done` / `slot_error` so those two stay terminal.

export const GENERATION_TOPIC = 'generation';
export const GENERATION_EVENTS = ['phase', 'partial', 'slot_done', 'slot_error', 'done', 'error'] as const;
export type GenerationEventName = (typeof GENERATION_EVENTS)[number];

export interface PhaseFields {
  requestId: string;
  kind: string;
  phase: JobPhase;
  provider?: string;
  model?: string;
  slot?: number;
}

export interface PartialFields {
  requestId: string;
  index: number;
  format: ImageFormat;
  /** Base64 of the partial render: live listeners only, dropped from replay. */
  b64: string;
  slot?: number;
}

type Fields = { [key: string]: unknown };

/** Publishes one generation event; `b64` never enters the replay buffer. */
export function publishGeneration(ctx: StudioContext, event: GenerationEventName, fields: Fields): void {
  ctx.events.publish(GENERATION_TOPIC, event, fields, event === 'partial' ? { transientFields: ['b64'] } : undefined);
}

export type ErrorPayload = ErrorBody['error'];
