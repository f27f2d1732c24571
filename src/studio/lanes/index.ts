import type { ProviderLaneId } from '../catalog/lanes.js';
import { apiLane } from './api/api-lane.js';
import { oauthLane } from './oauth/oauth-lane.js';
import type { LaneAdapter } from './types.js';

/** The lanes this build can run. A lane missing here is reported `unavailable` by /api/providers. */
export const LANE_ADAPTERS: Partial<Record<ProviderLaneId, LaneAdapter>> = {
  oauth: oauthLane,
  api: apiLane,
};
