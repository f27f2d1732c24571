import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { lazy } from '../../common/lazy.js';
import { parseWith } from '../../common/validation.js';
import { ServiceError } from '../errors.js';
import { DERIVED_KINDS, importRequest, JOB_PRIORITY, REQUEST_ID_PATTERN } from '../api/index.js';
import { saveAsset } from '../assets.js';
import { addJobRoute } from '../jobs/route.js';
import { planTrace } from '../jobs/trace-job.js';
import { loadImageInput } from '../references.js';
import { TRACE_PARAMETERS } from '../vector/presets.js';
import type { StudioRoutes } from './plugin.js';

// Assets made other than by a generation: an image imported from outside
// (POST /api/assets), and a derived asset of a stored one (POST
// /api/assets/derived: today a vector SVG traced from a raster, run as a job).
// Both answer 201 with the new asset's record.

const PARAMETER_NAMES = Object.keys(TRACE_PARAMETERS);

/** The query of POST /api/assets/derived: what to trace, and the delivery fields every job route takes (also the MCP tool trace_to_svg's). */
export const derivedQuery = lazy(() =>
  z
    .object({
      kind: z.enum(DERIVED_KINDS),
      source: z.string().min(1),
      preset: z.string().optional(),
      /** Each tracer parameter, as text (checked against its range when the job is planned). */
      ...Object.fromEntries(PARAMETER_NAMES.map((name) => [name, z.string().optional()])),
      requestId: z.string().regex(REQUEST_ID_PATTERN).optional(),
      async: z.stringbool().optional(),
      cancelOnDisconnect: z.stringbool().optional(),
      priority: z.coerce.number().int().min(JOB_PRIORITY.min).max(JOB_PRIORITY.max).optional(),
    })
    .strict(),
);

export const assetRoutes: StudioRoutes = async (app, { ctx }) => {
  app.post('/api/assets', async (request, reply) => {
    const body = parseWith(importRequest, request.body);
    // The same checks as a reference: type from the bytes, size, every pixel decodes.
    const image = await loadImageInput(ctx, { data: body.data, ...(body.name ? { name: body.name } : {}) }, 'data');
    const record = await saveAsset(ctx, {
      bytes: image.bytes,
      metadata: {
        prompt: body.name ?? 'imported image',
        lane: 'import',
        model: 'none',
        requestId: randomUUID(),
        kind: 'import',
        settings: { source: 'import' },
      },
    });
    return reply.code(201).send(record);
  });

  // A trace is a job (kind `trace`): sync (201 with the SVG's record), async (202) or SSE, like every job.
  addJobRoute(app, ctx, {
    url: '/api/assets/derived',
    parse: (request) =>
      parseWith(derivedQuery, request.query, {
        code: 'TRACE_PARAMETER_INVALID',
        errors: ServiceError,
        what: 'query parameter',
        hints: { kind: DERIVED_KINDS, requestId: { pattern: REQUEST_ID_PATTERN.source } },
      }),
    plan: async (
      ctx,
      { kind: _kind, source, preset, requestId: _id, async: _async, cancelOnDisconnect: _cancel, priority: _priority, ...parameters },
      requestId,
    ) => planTrace(ctx, { source, preset, parameters }, requestId),
    syncStatus: 201,
  });
};
