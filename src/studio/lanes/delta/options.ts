import { z } from 'zod';
import { lazy } from '../../../common/lazy.js';

// The delta lane's own options (the request's `options`).

export const deltaOptions = lazy(() =>
  z
    .object({
      seed: z
        .number()
        .int()
        .min(0)
        .max(2 ** 31 - 1)
        .optional()
        .describe('The same seed and prompt give the same image.'),
      promptOptimizer: z.boolean().optional().describe('Let the vendor rewrite the prompt (default false).'),
    })
    .strict(),
);

export type DeltaOptions = z.output<typeof deltaOptions>;
