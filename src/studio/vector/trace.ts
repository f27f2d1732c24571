import { ServiceError } from '../../common/errors.js';
import { loadSharp } from '../../common/sharp.js';
import { TRACE_CONCURRENCY, TRACE_MAX_SIDE, type TraceParameters } from './presets.js';

// Tracing a raster image to SVG with VTracer (the native binding runs on
// libuv's thread pool, off the event loop), a few at a time, within a time
// budget. The binding does not stop a trace it has started: a trace past its
// budget answers TRACE_TIMEOUT at once and keeps its slot until it ends, so
// the pool is never oversubscribed.

export interface TraceOutcome {
  readonly svg: string;
  /** The source's size, and the size it was traced at (scaled down above TRACE_MAX_SIDE). */
  readonly sourceSize: { readonly width: number; readonly height: number };
  readonly tracedSize: { readonly width: number; readonly height: number };
  readonly tracerMs: number;
}

let running = 0;
const waiting: Array<() => void> = [];

async function slot(signal: AbortSignal): Promise<() => void> {
  if (running >= TRACE_CONCURRENCY) {
    await new Promise<void>((resolve, reject) => {
      const ready = () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        waiting.splice(waiting.indexOf(ready), 1);
        reject(signal.reason);
      };
      waiting.push(ready);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }
  running += 1;
  return () => {
    running -= 1;
    waiting.shift()?.();
  };
}

const vectorizer = () => import('@neplex/vectorizer');

/** VTracer's configuration for our parameters. */
async function tracerConfig(parameters: TraceParameters) {
  const { ColorMode, Hierarchical, PathSimplifyMode } = await vectorizer();
  return {
    colorMode: parameters.colorMode === 'binary' ? ColorMode.Binary : ColorMode.Color,
    hierarchical: parameters.hierarchical === 'cutout' ? Hierarchical.Cutout : Hierarchical.Stacked,
    filterSpeckle: parameters.filterSpeckle,
    colorPrecision: parameters.colorPrecision,
    layerDifference: parameters.layerDifference,
    mode: parameters.mode === 'none' ? PathSimplifyMode.None : parameters.mode === 'polygon' ? PathSimplifyMode.Polygon : PathSimplifyMode.Spline,
    cornerThreshold: parameters.cornerThreshold,
    lengthThreshold: parameters.lengthThreshold,
    maxIterations: parameters.maxIterations,
    spliceThreshold: parameters.spliceThreshold,
    pathPrecision: parameters.pathPrecision,
  };
}

/**
 * Traces `source` (PNG, JPEG or WebP bytes). `signal` aborts the wait (the
 * client left); `budgetMs` bounds the whole call.
 */
export async function traceImage(source: Buffer, parameters: TraceParameters, options: { signal: AbortSignal; budgetMs: number }): Promise<TraceOutcome> {
  const budget = AbortSignal.timeout(options.budgetMs);
  const signal = AbortSignal.any([options.signal, budget]);
  const timedOut = () => new ServiceError('TRACE_TIMEOUT', `Tracing took longer than ${Math.round(options.budgetMs / 1000)} s.`, { details: { timeoutMs: options.budgetMs } });
  let release: (() => void) | undefined;
  try {
    release = await slot(signal);
    const sharp = await loadSharp();
    const meta = await sharp(source).metadata();
    const { data, info } = await sharp(source)
      .autoOrient()
      .resize({ width: TRACE_MAX_SIDE, height: TRACE_MAX_SIDE, fit: 'inside', withoutEnlargement: true })
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    const { vectorizeRaw } = await vectorizer();
    const started = performance.now();
    const tracing = vectorizeRaw(data, { width: info.width, height: info.height }, await tracerConfig(parameters));
    const finished = tracing.finally(() => {
      release?.();
      release = undefined;
    });
    const svg = await new Promise<string>((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      finished.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
    return {
      svg,
      sourceSize: { width: meta.autoOrient.width, height: meta.autoOrient.height },
      tracedSize: { width: info.width, height: info.height },
      tracerMs: Math.round(performance.now() - started),
    };
  } catch (error) {
    if (budget.aborted) throw timedOut();
    if (options.signal.aborted) throw new ServiceError('JOB_CANCELLED', 'The client left before the trace finished.');
    if (error instanceof ServiceError) throw error;
    throw new ServiceError('TRACE_FAILED', `The tracer could not trace the image: ${(error as Error).message}.`, { cause: error });
  } finally {
    // Only when the trace never started (the wait or the decode failed); a started one releases itself.
    if (release && running > 0) release();
  }
}
