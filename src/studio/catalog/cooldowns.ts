import { ERROR_CODES, type ServiceError } from '../errors.js';
import type { LaneId } from '../api/index.js';

// Lanes that said "not now". A lane whose upstream answered a rate limit or an
// exhausted quota (any code the table answers with 429) cools down until the
// vendor's reset time when it gave one (Retry-After, a reset delay in its
// error), else for a short default: one quota error never benches a lane for
// long on a guess. `auto` skips it meanwhile, and /api/providers says why,
// until when and whether the vendor said so. An explicit request to the lane
// still goes (the upstream decides).

/** Without a vendor reset time, how long a lane rests after a rate limit. */
export const DEFAULT_COOLDOWN_SECONDS = 30;

export interface Cooldown {
  /** When the lane may be tried again (ms since the epoch). */
  readonly until: number;
  readonly code: string;
  readonly reason: string;
  /** `vendor`: the upstream said when; `default`: DEFAULT_COOLDOWN_SECONDS. */
  readonly source: 'vendor' | 'default';
}

export class LaneCooldowns {
  private readonly lanes = new Map<LaneId, Cooldown>();

  /** Records the outcome of a lane call: a 429-class failure starts a cooldown, a success ends one. */
  noteFailure(lane: LaneId, error: ServiceError, now = Date.now()): void {
    if (ERROR_CODES[error.code].status !== 429) return;
    const retryAfter = Number(error.details?.retryAfterSeconds);
    const known = Number.isFinite(retryAfter) && retryAfter > 0;
    const seconds = known ? retryAfter : DEFAULT_COOLDOWN_SECONDS;
    this.lanes.set(lane, { until: now + seconds * 1000, code: error.code, reason: error.message, source: known ? 'vendor' : 'default' });
  }

  noteSuccess(lane: LaneId): void {
    this.lanes.delete(lane);
  }

  /** The lane's cooldown while it lasts. */
  get(lane: LaneId, now = Date.now()): Cooldown | undefined {
    const cooldown = this.lanes.get(lane);
    if (cooldown && cooldown.until <= now) {
      this.lanes.delete(lane);
      return undefined;
    }
    return cooldown;
  }
}
