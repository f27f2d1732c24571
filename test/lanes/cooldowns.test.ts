import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../src/studio/errors.js';
import { DEFAULT_COOLDOWN_SECONDS, LaneCooldowns } from '../../src/studio/catalog/cooldowns.js';

// Issue 29, item 11: a cooldown follows the vendor's reset time when it gave
// one, else a short default, and says which.
describe('lane cooldowns', () => {
  it('rests until the vendor reset when known, else the short default, and names the source', () => {
    const cooldowns = new LaneCooldowns();
    const now = Date.parse('2026-11-26T10:00:00Z');
    cooldowns.noteFailure('gamma', new ServiceError('RATE_LIMITED', 'slow down', { details: { retryAfterSeconds: 7200 } }), now);
    expect(cooldowns.get('gamma', now)).toMatchObject({ until: now + 7_200_000, source: 'vendor' });
    cooldowns.noteFailure('delta', new ServiceError('RATE_LIMITED', 'slow down'), now);
    expect(cooldowns.get('delta', now)).toMatchObject({ until: now + DEFAULT_COOLDOWN_SECONDS * 1000, source: 'default' });
    expect(DEFAULT_COOLDOWN_SECONDS).toBeLessThanOrEqual(60);
    expect(cooldowns.get('delta', now + DEFAULT_COOLDOWN_SECONDS * 1000)).toBeUndefined();
    // A failure that is not a rate limit benches nothing.
    cooldowns.noteFailure('epsilon', new ServiceError('UPSTREAM_FAILED', 'boom'), now);
    expect(cooldowns.get('epsilon', now)).toBeUndefined();
  });
});
