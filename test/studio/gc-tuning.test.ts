import { describe, expect, it } from 'vitest';
import { CONCURRENT_MARKING_MIN_CORES, tuneGarbageCollection } from '../../src/studio/gc-tuning.js';

describe('the garbage-collector setting', () => {
  it('keeps marking on the event loop below three cores, and V8 default from three on', () => {
    expect(CONCURRENT_MARKING_MIN_CORES).toBe(3);
    expect(tuneGarbageCollection(1)).toBe(true);
    expect(tuneGarbageCollection(2)).toBe(true);
    expect(tuneGarbageCollection(3)).toBe(false);
    expect(tuneGarbageCollection(16)).toBe(false);
  });
});
