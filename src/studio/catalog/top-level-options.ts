import type { z } from 'zod';
import { isLaneId } from '../api/index.js';
import { LANES } from './registry.js';

// A lane's own controls belong in `options`, but the spec never names that
// field: a client written from the spec sends `aspectRatio` (beta-api) or
// `sampler` (epsilon) beside `prompt`. When the body names its lane and such a
// field is that lane's option and no field of the request, it is read as that
// option. Anything else stays as sent (an unknown field is then refused by the
// strict schema): `auto` (which lane would it be?), a name the request itself
// has, or one also given in `options`.

/** The body with the named lane's own controls moved from the top level into `options`. */
export function liftLaneOptions(body: unknown, request: z.ZodObject): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const fields = body as Record<string, unknown>;
  const { provider } = fields;
  if (!isLaneId(provider)) return body;
  const laneOptions = LANES[provider].options?.shape;
  if (!laneOptions) return body;
  const given =
    fields.options !== null && typeof fields.options === 'object' && !Array.isArray(fields.options)
      ? (fields.options as Record<string, unknown>)
      : undefined;
  if (fields.options !== undefined && given === undefined) return body;
  const lifted = Object.keys(fields).filter((name) => !(name in request.shape) && name in laneOptions && !(given && name in given));
  if (lifted.length === 0) return body;
  const rest = Object.fromEntries(Object.entries(fields).filter(([name]) => !lifted.includes(name)));
  return { ...rest, options: { ...given, ...Object.fromEntries(lifted.map((name) => [name, fields[name]])) } };
}
