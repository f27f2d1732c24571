import type { ReferenceImage } from '../references.js';

/**
 * What an agent turn holds in memory while the process that queued it runs it:
 * the session's current image at enqueue time and the turn's references,
 * decoded. They are also stored with the job (jobs/inputs.ts), so an item that
 * waits keeps them across a restart.
 */
export interface AgentTurnInputs {
  readonly current?: ReferenceImage;
  readonly references: readonly ReferenceImage[];
}
