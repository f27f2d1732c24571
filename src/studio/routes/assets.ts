import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { ServiceError } from '../../common/errors.js';
import { parseWith } from '../../common/validation.js';
import { DERIVED_KINDS, importRequest } from '../api/index.js';
import { saveAsset } from '../assets.js';
import type { StudioContext } from '../context.js';
import { assertValidFilename, pathInside } from '../media/filename.js';
import { sniffImageType } from '../media/image-type.js';
import { svgPathCount } from '../media/svg.js';
import { loadImageInput } from '../references.js';
import { findAsset } from '../store/assets.js';
import { DEFAULT_TRACE_PRESET, TRACE_PARAMETERS, TRACE_PRESET_NAMES, TRACE_PRESETS, TRACE_TIMEOUT_MS, type TraceParameters, type TracePresetName } from '../vector/presets.js';
import { traceImage } from '../vector/trace.js';
import type { StudioRoutes } from './plugin.js';

// Assets made other than by a generation: an image imported from outside
// (POST /api/assets), and a derived asset of a stored one (POST
// /api/assets/derived: today a vector SVG traced from a raster). Both answer
// 201 with the new asset's record.

const PARAMETER_NAMES = Object.keys(TRACE_PARAMETERS) as (keyof TraceParameters)[];

const derivedQuery = z
  .object({
    kind: z.enum(DERIVED_KINDS),
    source: z.string().min(1),
    preset: z.string().optional(),
    ...Object.fromEntries(PARAMETER_NAMES.map((name) => [name, z.string().optional()])),
  })
  .strict();

/** The preset's parameters with the request's overrides, each checked against its range. */
function traceParameters(query: Record<string, string | undefined>): { preset: TracePresetName; parameters: TraceParameters } {
  const preset = (query.preset ?? DEFAULT_TRACE_PRESET) as TracePresetName;
  if (!TRACE_PRESET_NAMES.includes(preset)) {
    throw new ServiceError('TRACE_PRESET_UNKNOWN', `Unknown tracing preset "${query.preset}".`, { details: { field: 'preset', valid: TRACE_PRESET_NAMES } });
  }
  const parameters: Record<string, unknown> = { ...TRACE_PRESETS[preset] };
  for (const name of PARAMETER_NAMES) {
    if (query[name] === undefined) continue;
    const parsed = TRACE_PARAMETERS[name].safeParse(query[name]);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const valid = issue.code === 'invalid_value' ? issue.values : { min: (issue as { minimum?: unknown }).minimum, max: (issue as { maximum?: unknown }).maximum };
      throw new ServiceError('TRACE_PARAMETER_INVALID', `${name}: ${issue.code === 'invalid_value' ? `must be one of ${issue.values.join(', ')}` : issue.message}`, { details: { field: name, valid } });
    }
    parameters[name] = parsed.data;
  }
  return { preset, parameters: parameters as TraceParameters };
}

/** Time budget of one trace: SVC_TRACE_TIMEOUT_MS, else the default. */
function traceBudget(ctx: StudioContext): number {
  const override = Number(ctx.env.SVC_TRACE_TIMEOUT_MS);
  return Number.isFinite(override) && override > 0 ? override : TRACE_TIMEOUT_MS;
}

export const assetRoutes: StudioRoutes = async (app, { ctx }) => {
  app.post('/api/assets', async (request, reply) => {
    const body = parseWith(importRequest, request.body);
    // The same checks as a reference: type from the bytes, size, every pixel decodes.
    const image = await loadImageInput(ctx, { data: body.data, ...(body.name ? { name: body.name } : {}) }, 'data');
    const record = await saveAsset(ctx, {
      bytes: image.bytes,
      metadata: { prompt: body.name ?? 'imported image', lane: 'import', model: 'none', requestId: randomUUID(), kind: 'import', settings: { source: 'import' } },
    });
    return reply.code(201).send(record);
  });

  app.post('/api/assets/derived', async (request, reply) => {
    const query = parseWith(derivedQuery, request.query, { code: 'TRACE_PARAMETER_INVALID', what: 'query parameter', hints: { kind: DERIVED_KINDS } });
    const { preset, parameters } = traceParameters(query as Record<string, string | undefined>);
    assertValidFilename(query.source, { field: 'source' });
    const source = findAsset(ctx.db, query.source);
    if (!source || source.deleted_at !== null) throw new ServiceError('TRACE_SOURCE_NOT_FOUND', `${query.source} is not in history.`, { details: { source: query.source } });
    const bytes = await readFile(pathInside(ctx.paths.generatedDir, source.filename));
    if (!sniffImageType(bytes)) {
      throw new ServiceError('TRACE_SOURCE_UNSUPPORTED', `${source.filename} is ${source.format}: only PNG, JPEG and WebP images can be traced.`, { details: { source: source.filename, format: source.format } });
    }

    // A client that leaves stops waiting for its trace.
    const left = new AbortController();
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) left.abort();
    });
    const traced = await traceImage(bytes, parameters, { signal: left.signal, budgetMs: traceBudget(ctx) });
    const record = await saveAsset(ctx, {
      bytes: Buffer.from(traced.svg),
      vector: true,
      derivedFrom: source.filename,
      metadata: {
        prompt: source.prompt,
        ...(source.revised_prompt ? { revisedPrompt: source.revised_prompt } : {}),
        lane: 'vector',
        model: 'vtracer',
        requestId: randomUUID(),
        kind: 'vector-svg',
        ...(source.session_title ? { sessionTitle: source.session_title } : {}),
        settings: {
          derivedFrom: source.filename,
          preset,
          parameters,
          pathCount: svgPathCount(traced.svg),
          sourceSize: traced.sourceSize,
          tracedSize: traced.tracedSize,
          tracerMs: traced.tracerMs,
        },
      },
    });
    return reply.code(201).send(record);
  });
};
