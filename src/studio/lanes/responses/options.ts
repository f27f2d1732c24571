import { z } from 'zod';
import { lazy } from '../../../common/lazy.js';

// The own options of the two Responses lanes (api, oauth): the hosted image
// tool's fields the common controls do not cover (contract: api-oauth-responses-
// image-stream, "Hosted image tool object"). The vendor checks their pairing with
// the format (transparent needs png or webp; compression is for jpeg and webp).

export const responsesOptions = lazy(() =>
  z
    .object({
      background: z
        .enum(['auto', 'opaque', 'transparent'])
        .optional()
        .meta({ title: 'Background' })
        .describe('transparent needs png or webp.'),
      outputCompression: z
        .number()
        .int()
        .min(0)
        .max(100)
        .optional()
        .meta({ title: 'Output compression' })
        .describe('0–100, jpeg and webp only (the vendor default is 100).'),
    })
    .strict(),
);

export type ResponsesOptions = z.output<typeof responsesOptions>;
