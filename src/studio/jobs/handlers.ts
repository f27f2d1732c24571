import type { ImageFormat, JobKind, JobPhase, JobResult } from '../api/index.js';
import type { StudioContext } from '../context.js';
import type { GenerationEvents } from './events.js';

// What a job kind is: a handler registered by kind that runs a serializable
// job. Whether a kind can resume after a restart is declared here, once.

/** A job as its handler receives it: the stored row's facts plus what runs it now. */
export interface JobContext {
  readonly requestId: string;
  readonly kind: JobKind;
  readonly lane: string | null;
  readonly model: string | null;
  /** The accepted request, as stored (JSON: no secrets, no image bytes). */
  readonly request: Readonly<Record<string, unknown>>;
  /** What only this process holds: decoded input images. Absent after a restart. */
  readonly inputs: unknown;
  /** The upstream's own operation, once the handler recorded one. */
  readonly upstream: { readonly operationId: string; readonly state: string | null } | null;
  /** Aborted when the job is cancelled. */
  readonly signal: AbortSignal;
  readonly events: GenerationEvents;
  /** Publishes and records a phase (`slot` inside a batch). */
  phase(phase: JobPhase, fields?: { slot?: number; provider?: string; model?: string }): void;
  partial(image: { index: number; b64: string; format: ImageFormat; slot?: number }): void;
  /** Records the upstream operation so a restarted studio can resume polling it. */
  setUpstream(operationId: string, state: string | null): void;
}

/** A stored job as the handler judges whether it can resume. */
export interface StoredJob {
  readonly kind: JobKind;
  readonly request: Readonly<Record<string, unknown>>;
  readonly upstream: { readonly operationId: string; readonly state: string | null } | null;
}

export interface JobHandler {
  readonly kinds: readonly JobKind[];
  /**
   * Whether this job survives a restart: on start-up it runs again from its
   * stored upstream operation (with no `inputs`). Jobs that cannot are marked
   * `interrupted`; at shutdown the ones that can are left unfinished instead
   * of cancelled.
   */
  canResume(job: StoredJob): boolean;
  run(ctx: StudioContext, job: JobContext): Promise<JobResult>;
}
