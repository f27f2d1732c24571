import type { JobRecord } from './jobs.js';

// What a job was asked to make, read from its typed record: a list, a card or
// the CLI shows this without knowing how a kind stores its request. Plain code
// with type-only imports, so the web UI's bundle takes it without zod.

export interface JobSummary {
  /** The prompt of its first output; null for a job without one (a trace). */
  readonly prompt: string | null;
  /** The size its first output asked for, when it named one. */
  readonly size: string | null;
  /** How many outputs it makes. */
  readonly outputs: number;
  /** A trace's source in history; null otherwise. */
  readonly source: string | null;
}

export function jobSummary(record: JobRecord): JobSummary {
  if (record.kind === 'trace') return { prompt: null, size: null, outputs: 1, source: record.request.source };
  const first = record.request.slots[0];
  return { prompt: first.fields.prompt, size: first.fields.size ?? null, outputs: record.request.slots.length, source: null };
}
