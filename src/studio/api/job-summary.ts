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
  if (record.kind === 'video') {
    const { clips, storyboard, resolution, inputs } = record.request;
    // A storyboard makes its clips and their joined video.
    return {
      prompt: clips[0].prompt,
      size: resolution ?? null,
      outputs: clips.length + (storyboard ? 1 : 0),
      source: inputs.source ?? null,
    };
  }
  // An agent turn's text (its images are planned when it runs).
  if (record.kind === 'agent-turn') return { prompt: record.request.prompt, size: null, outputs: 1, source: null };
  // An MCP job makes one file; its size is its ratio.
  if (record.kind === 'mcp') return { prompt: record.request.prompt, size: record.request.ratio, outputs: 1, source: null };
  const first = record.request.slots[0];
  return { prompt: first.fields.prompt, size: first.fields.size ?? null, outputs: record.request.slots.length, source: null };
}
