import { z } from 'zod';
import { lazy } from '../../common/lazy.js';
import { ServiceError } from '../errors.js';
import { IMAGE_FORMATS, type AssetRecord } from '../api/index.js';
import { saveAsset } from '../assets.js';
import type { StudioContext } from '../context.js';
import { assertValidFilename } from '../media/filename.js';
import { sniffImageType } from '../media/image-type.js';
import { svgPathCount } from '../media/svg.js';
import type { AssetRow } from '../store/assets.js';
import { TRACE_CONCURRENCY, TRACE_PARAMETERS, TRACE_TIMEOUT_MS } from '../vector/presets.js';
import { traceParameters } from '../vector/parameters.js';
import { traceImage } from '../vector/trace.js';
import type { JobHandler } from './handlers.js';
import type { JobSpec } from './running-job.js';

// Tracing a stored raster to SVG (POST /api/assets/derived) as a job of kind
// `trace`: listed in /api/inflight, cancellable, async with a requestId like
// every job; the synchronous answer stays for clients that wait. It never
// reaches an upstream, so a trace cut by a restart simply runs again.

/** The source of a trace: in history, not deleted, a raster. */
async function traceSource(ctx: StudioContext, filename: string): Promise<AssetRow> {
  const source = await ctx.store.assets.find(filename);
  if (!source || source.deleted_at !== null)
    throw new ServiceError('TRACE_SOURCE_NOT_FOUND', `${filename} is not in history.`, { details: { source: filename } });
  if (!(IMAGE_FORMATS as readonly string[]).includes(source.format)) {
    throw new ServiceError(
      'TRACE_SOURCE_UNSUPPORTED',
      `${source.filename} is ${source.format}: only PNG, JPEG and WebP images can be traced.`,
      { details: { source: source.filename, format: source.format } },
    );
  }
  return source;
}

/** Time budget of one trace: SVC_TRACE_TIMEOUT_MS, else the default. */
function traceBudget(ctx: StudioContext): number {
  const override = Number(ctx.env.SVC_TRACE_TIMEOUT_MS);
  return Number.isFinite(override) && override > 0 ? override : TRACE_TIMEOUT_MS;
}

/** Checks a trace request before its job is accepted: preset, parameters, source. */
export async function planTrace(
  ctx: StudioContext,
  query: { source: string; preset?: string; parameters: Readonly<Record<string, unknown>> },
  requestId: string,
): Promise<JobSpec<'trace'>> {
  const { preset, parameters } = traceParameters(query.preset, query.parameters);
  assertValidFilename(query.source, { field: 'source' });
  await traceSource(ctx, query.source);
  return {
    requestId,
    kind: 'trace',
    lane: null,
    model: 'vtracer',
    request: { kind: 'vector-svg', source: query.source, preset, parameters },
  };
}

/** Every parameter, as a trace job stores them (planning filled in the preset's). */
const storedParameters = lazy(() => z.object(TRACE_PARAMETERS));

export const traceJobHandler: JobHandler<'trace'> = {
  canResume: () => false,
  reachesUpstreamAtStart: () => false,
  budgetMs: (ctx) => traceBudget(ctx),
  // Each trace is a process of its own on this machine's cores: a few at a time, the rest queued like any job.
  maxRunning: TRACE_CONCURRENCY,
  async run(ctx, job): Promise<AssetRecord> {
    const { request } = job;
    const parameters = storedParameters.parse(request.parameters);
    job.phase('rendering', { provider: 'vector', model: 'vtracer' });
    const source = await traceSource(ctx, request.source);
    const bytes = await ctx.assets.read('generated', source.filename);
    if (bytes === undefined)
      throw new ServiceError('TRACE_SOURCE_NOT_FOUND', `The file of ${source.filename} is gone from history.`, {
        details: { source: source.filename },
      });
    if (!(bytes instanceof Buffer) || !sniffImageType(bytes)) {
      throw new ServiceError('TRACE_SOURCE_UNSUPPORTED', `${source.filename} is not a PNG, JPEG or WebP image.`, {
        details: { source: source.filename, format: source.format },
      });
    }
    const traced = await traceImage(bytes, parameters, { signal: job.signal, budgetMs: Math.max(0, job.deadline - Date.now()) });
    if (job.signal.aborted) throw job.signal.reason;
    job.phase('saving', { provider: 'vector', model: 'vtracer' });
    // A trace follows its source's session (linked by id, so a rename moves both and leaves no ghost group).
    const sourceTitle = source.session_current_title ?? source.session_title;
    return saveAsset(ctx, {
      bytes: Buffer.from(traced.svg),
      vector: true,
      derivedFrom: source.filename,
      ...(source.session_id && sourceTitle ? { session: { id: source.session_id, title: sourceTitle } } : {}),
      metadata: {
        prompt: source.prompt,
        ...(source.revised_prompt ? { revisedPrompt: source.revised_prompt } : {}),
        lane: 'vector',
        model: 'vtracer',
        requestId: job.requestId,
        kind: 'vector-svg',
        ...(source.session_title ? { sessionTitle: source.session_title } : {}),
        settings: {
          derivedFrom: source.filename,
          preset: request.preset,
          parameters,
          pathCount: svgPathCount(traced.svg),
          sourceSize: traced.sourceSize,
          tracedSize: traced.tracedSize,
          tracerMs: traced.tracerMs,
        },
      },
    });
  },
};
