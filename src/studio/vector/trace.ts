import { ServiceError } from '../errors.js';
import { TRACE_LIMITS, TRACE_MAX_SIDE, type TraceLimits, type TraceParameters } from './presets.js';
import { runTracerProcess } from './tracer-process.js';

// Tracing a raster image to SVG with VTracer (a few at a time: the trace job kind's limit), within a time
// budget and the limits of TRACE_LIMITS. Each trace runs in a process of its
// own (tracer-process.ts): past its budget, on cancel, or over a limit it is
// killed, its core and its memory are free at once, and nothing waits for it.

export interface TraceOutcome {
  readonly svg: string;
  /** The source's size, and the size it was traced at (scaled down above TRACE_MAX_SIDE). */
  readonly sourceSize: { readonly width: number; readonly height: number };
  readonly tracedSize: { readonly width: number; readonly height: number };
  readonly tracerMs: number;
}

/**
 * Traces `source` (PNG, JPEG or WebP bytes). `signal` cancels (the client
 * left: JOB_CANCELLED); `budgetMs` bounds the whole call (TRACE_TIMEOUT);
 * `limits` (default TRACE_LIMITS) bound the work and the SVG
 * (TRACE_SOURCE_TOO_LARGE, TRACE_TOO_COMPLEX). Every way out ends the tracer.
 */
export async function traceImage(
  source: Buffer,
  parameters: TraceParameters,
  options: { signal: AbortSignal; budgetMs: number; limits?: Partial<TraceLimits> },
): Promise<TraceOutcome> {
  const budget = AbortSignal.timeout(options.budgetMs);
  const signal = AbortSignal.any([options.signal, budget]);
  const limits = { ...TRACE_LIMITS, ...options.limits };
  // Why a trace ended early: the client's cancel wins over the budget.
  const stopped = () =>
    options.signal.aborted
      ? new ServiceError('JOB_CANCELLED', 'The client left before the trace finished.')
      : new ServiceError('TRACE_TIMEOUT', `Tracing took longer than ${Math.round(options.budgetMs / 1000)} s.`, {
          details: { timeoutMs: options.budgetMs },
        });
  try {
    const result = await runTracerProcess(source, { parameters, maxSide: TRACE_MAX_SIDE, limits }, signal);
    if (result.kind === 'aborted') throw stopped();
    if (result.kind === 'crashed') throw new ServiceError('TRACE_FAILED', `The tracer process ended unexpectedly (${result.reason}).`);
    const { outcome } = result;
    if (!outcome.ok) throw new ServiceError(outcome.code, outcome.message, { details: outcome.details });
    return { svg: result.svg.toString('utf8'), sourceSize: outcome.sourceSize, tracedSize: outcome.tracedSize, tracerMs: outcome.tracerMs };
  } catch (error) {
    if (error instanceof ServiceError) throw error;
    if (signal.aborted) throw stopped();
    throw new ServiceError('TRACE_FAILED', `The tracer could not trace the image: ${(error as Error).message}.`, { cause: error });
  }
}
