import { z } from 'zod';
import { lazy } from '../../../common/lazy.js';
import { BETA_ASPECT_RATIOS, BETA_RESOLUTION_TIERS } from './controls.js';

// The beta-api lane's own options (the request's `options`): its native aspect ratio and resolution tier.

export const betaOptions = lazy(() =>
  z.object({ aspectRatio: z.enum(BETA_ASPECT_RATIOS).optional(), resolution: z.enum(BETA_RESOLUTION_TIERS).optional() }).strict(),
);

export type BetaOptions = z.output<typeof betaOptions>;
