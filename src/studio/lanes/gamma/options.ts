import { z } from 'zod';
import { lazy } from '../../../common/lazy.js';
import { GAMMA_BACKGROUNDS } from './protocol.js';

// The gamma lane's own options (the request's `options`).

export const gammaOptions = lazy(() =>
  z.object({ background: z.enum(GAMMA_BACKGROUNDS).optional().describe('transparent makes a PNG whatever the format.') }).strict(),
);

export type GammaOptions = z.output<typeof gammaOptions>;
