import { describe, expect, it } from 'vitest';
import { MARKER_INSTRUCTIONS, scanGoalMarkers } from './markers.js';

describe('goal markers in an agent’s answer', () => {
  it('reads done with and without evidence, and pause with its reason, at the start of a line', () => {
    expect(scanGoalMarkers('All set.\n[goal:done] evidence: tests pass; deployed')).toEqual({ done: { evidence: 'tests pass; deployed' } });
    expect(scanGoalMarkers('  [goal:done]')).toEqual({ done: { evidence: '' } });
    expect(scanGoalMarkers('[goal:pause] reason: need a key')).toEqual({ pause: { reason: 'need a key' } });
    expect(scanGoalMarkers('[goal:pause]')).toEqual({ pause: { reason: 'the agent asked to pause' } });
  });

  it('takes the last of each kind, and nothing in the middle of a line', () => {
    expect(scanGoalMarkers('[goal:done]\nmore work\n[goal:done] evidence: second')).toEqual({ done: { evidence: 'second' } });
    expect(scanGoalMarkers('I would write [goal:done] evidence: x when finished.')).toEqual({});
  });

  it('its own instructions, quoted back, are no marker', () => {
    expect(scanGoalMarkers(`Echo: Continue working on the goal: x\n${MARKER_INSTRUCTIONS}`)).toEqual({});
  });
});
