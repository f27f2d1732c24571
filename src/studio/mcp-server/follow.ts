import type { ChannelEvent } from '../../common/events/types.js';

// A tool's job is followed through its events (jobs/follow.ts): each one worth
// telling becomes a progress step (MCP progress must only grow).

/** One step of a job's progress, as MCP progress says it. */
export interface ProgressStep {
  readonly progress: number;
  readonly total?: number;
  readonly message: string;
}

/** The share of the job done (0–1) an event tells, when it tells one. */
function fractionOf(event: ChannelEvent): number | undefined {
  if (event.event !== 'progress') return undefined;
  if (typeof event.fraction === 'number') {
    const clips = typeof event.clips === 'number' ? event.clips : 1;
    const clip = typeof event.clip === 'number' ? event.clip : 1;
    return (clip - 1 + event.fraction) / clips;
  }
  if (typeof event.value === 'number' && typeof event.max === 'number' && event.max > 0) return event.value / event.max;
  return undefined;
}

/** What an event says in words, or undefined for one not worth a step. */
function messageOf(event: ChannelEvent): string | undefined {
  switch (event.event) {
    case 'phase':
      return event.phase === 'queued' && typeof event.position === 'number' ? `queued (position ${event.position})` : String(event.phase);
    case 'planning':
      return `planning clip ${String(event.clip)} of ${String(event.clips)}`;
    case 'submitted':
      return `submitted to ${String(event.provider)}`;
    case 'partial':
      return `partial image ${String(event.index)}`;
    case 'progress': {
      const fraction = fractionOf(event);
      if (fraction !== undefined) return `${Math.round(fraction * 100)}%${event.stalled ? ' (stalled)' : ''}`;
      return typeof event.phase === 'string' ? event.phase : 'working';
    }
    default:
      return undefined;
  }
}

/**
 * Progress, strictly growing. Until the job tells a share, each step counts one and has no
 * `total` (MCP: total unknown), so a job without fractions reads "step 3", not 0.03 of 100.
 * From its first share on, progress is in percent of `total` 100; a step without a share then
 * moves a hundredth past the last.
 */
export function progressSteps(onStep: (step: ProgressStep) => void): (event: ChannelEvent) => void {
  let last = 0;
  let inPercent = false;
  return (event) => {
    const message = messageOf(event);
    if (message === undefined) return;
    const fraction = fractionOf(event);
    if (fraction !== undefined) inPercent = true;
    if (!inPercent) {
      last += 1;
      onStep({ progress: last, message });
      return;
    }
    const percent = fraction === undefined ? undefined : Math.min(100, fraction * 100);
    last = percent !== undefined && percent > last ? percent : Math.round((last + 0.01) * 100) / 100;
    onStep({ progress: last, total: 100, message });
  };
}
