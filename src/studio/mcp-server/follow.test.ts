import { describe, expect, it } from 'vitest';
import type { ChannelEvent } from '../../common/events/types.js';
import { progressSteps, type ProgressStep } from './follow.js';

// Issue 46, item 6: MCP progress of a job without fractions counts steps (no
// total), not hundredths of 100; from the first share on it is in percent.

const event = (fields: Record<string, unknown>) => fields as unknown as ChannelEvent;

describe('progressSteps', () => {
  it('counts steps without a total until a share is known, then percent of 100, always growing', () => {
    const steps: ProgressStep[] = [];
    const follow = progressSteps((step) => steps.push(step));
    follow(event({ event: 'phase', phase: 'queued', position: 1 }));
    follow(event({ event: 'phase', phase: 'rendering' }));
    follow(event({ event: 'partial', index: 0 }));
    expect(steps).toEqual([
      { progress: 1, message: 'queued (position 1)' },
      { progress: 2, message: 'rendering' },
      { progress: 3, message: 'partial image 0' },
    ]);
    follow(event({ event: 'progress', fraction: 0.5 }));
    follow(event({ event: 'progress', phase: 'saving' }));
    expect(steps.slice(3)).toEqual([
      { progress: 50, total: 100, message: '50%' },
      { progress: 50.01, total: 100, message: 'saving' },
    ]);
  });

  it('a job whose first share is below its step count still grows', () => {
    const steps: ProgressStep[] = [];
    const follow = progressSteps((step) => steps.push(step));
    for (const phase of ['queued', 'planning', 'submitted']) follow(event({ event: 'phase', phase }));
    follow(event({ event: 'progress', fraction: 0.01 }));
    expect(steps.at(-1)).toEqual({ progress: 3.01, total: 100, message: '1%' });
  });
});
