import { z } from 'zod';
import { lazy } from '../../../common/lazy.js';
import { ALPHA_ASPECT_RATIOS, ALPHA_PLANNER_VERSIONS, ALPHA_RESOLUTIONS } from './controls.js';

// The alpha lanes' own options (the request's `options`): a native selection
// instead of a size, and the planner of this one request.

export const alphaOptions = lazy(() =>
  z
    .object({
      aspectRatio: z.enum(ALPHA_ASPECT_RATIOS).optional().describe('Native aspect ratio (instead of size).'),
      resolution: z.enum(ALPHA_RESOLUTIONS).optional().describe('Native resolution (instead of size).'),
      plannerModel: z.enum(ALPHA_PLANNER_VERSIONS).optional().describe('Planner model of this request.'),
    })
    .strict(),
);

export type AlphaOptions = z.output<typeof alphaOptions>;
