import type { ProviderLaneId } from '../catalog/lanes.js';
import type { StudioContext } from '../context.js';

/** What /api/providers says of a lane. */
export type LaneState = 'ready' | 'needs_credential' | 'needs_binary' | 'unreachable' | 'unavailable';

export interface LaneStatus {
  readonly state: LaneState;
  readonly reason: string;
}

/**
 * One upstream lane. Each lane folder exports one object implementing this;
 * `lanes/index.ts` lists them.
 */
export interface LaneAdapter {
  readonly id: ProviderLaneId;
  /** A cheap readiness check beyond the catalog's credential rule (e.g. a session file that is unreadable). */
  probe?(ctx: StudioContext): Promise<LaneStatus | undefined>;
}
