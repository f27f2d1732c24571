import { z } from 'zod';

// Tracing presets: named sets of VTracer parameters, declared once. A request
// picks a preset and may override single parameters within these ranges;
// `GET /api/capabilities` lists both (values.tracing).

/** The tracer's parameters, with the range each may take. */
export const TRACE_PARAMETERS = {
  /** Colors, or black-and-white line art. */
  colorMode: z.enum(['color', 'binary']),
  /** Layers stacked on each other, or cut out of each other. */
  hierarchical: z.enum(['stacked', 'cutout']),
  /** Discard patches smaller than this many pixels (cleaner). */
  filterSpeckle: z.coerce.number().int().min(0).max(128),
  /** Significant bits per RGB channel (more colors). */
  colorPrecision: z.coerce.number().int().min(1).max(8),
  /** Color difference between gradient layers (fewer layers). */
  layerDifference: z.coerce.number().int().min(1).max(255),
  /** Curve fitting: none (pixels), polygon, spline. */
  mode: z.enum(['none', 'polygon', 'spline']),
  /** Smallest angle (degrees) that is a corner (smoother when higher). */
  cornerThreshold: z.coerce.number().int().min(0).max(180),
  /** Subdivide until segments are shorter than this. */
  lengthThreshold: z.coerce.number().min(3.5).max(10),
  maxIterations: z.coerce.number().int().min(1).max(70),
  /** Smallest angle displacement (degrees) that splices a spline. */
  spliceThreshold: z.coerce.number().int().min(0).max(180),
  /** Decimal places in path data. */
  pathPrecision: z.coerce.number().int().min(0).max(8),
} as const;

export type TraceParameters = { [K in keyof typeof TRACE_PARAMETERS]: z.infer<(typeof TRACE_PARAMETERS)[K]> };

const BASE: TraceParameters = {
  colorMode: 'color',
  hierarchical: 'stacked',
  filterSpeckle: 4,
  colorPrecision: 6,
  layerDifference: 16,
  mode: 'spline',
  cornerThreshold: 60,
  lengthThreshold: 4,
  maxIterations: 10,
  spliceThreshold: 45,
  pathPrecision: 2,
};

/** The presets: `general` is the default. */
export const TRACE_PRESETS = {
  /** Balanced colors and detail: most generated images. */
  general: BASE,
  /** Flat, few colors, clean shapes: posters, logos, illustrations. */
  poster: { ...BASE, filterSpeckle: 8, colorPrecision: 4, layerDifference: 32 },
  /** Many colors and fine detail: photographs, painterly images (bigger files). */
  photo: { ...BASE, filterSpeckle: 10, colorPrecision: 8, layerDifference: 48, cornerThreshold: 180 },
  /** Black and white line art: drawings, sketches, text. */
  'line-art': { ...BASE, colorMode: 'binary', filterSpeckle: 4, cornerThreshold: 60 },
} as const satisfies Record<string, TraceParameters>;

export type TracePresetName = keyof typeof TRACE_PRESETS;
export const TRACE_PRESET_NAMES = Object.keys(TRACE_PRESETS) as TracePresetName[];
export const DEFAULT_TRACE_PRESET: TracePresetName = 'general';

/** Images are traced at most this large (the longest side; larger ones are scaled down first). */
export const TRACE_MAX_SIDE = 2048;
/** Most traces running at once (each keeps a core busy): the trace job kind's limit; the rest wait in the queue. */
export const TRACE_CONCURRENCY = 2;
/** Time budget of one trace from its start (a trace waiting for a slot waits in the queue); SVC_TRACE_TIMEOUT_MS overrides it. */
export const TRACE_TIMEOUT_MS = 60_000;

/**
 * What one trace may take and make. VTracer has no limits of its own: a
 * 2048² noise image with the most detailed parameters makes 4 million paths
 * (390 MB of SVG, 5 GB of memory). An image whose sampled estimate is over
 * `maxPaths` or `maxSvgBytes` is refused before the trace; a trace that goes
 * over any of them anyway is stopped. An SVG past these sizes is of no use in
 * a browser or an editor anyway (a traced photograph makes some 25,000 paths
 * and 12 MB with `general`).
 */
export interface TraceLimits {
  /** Most pixels of the stored image (its header is read before it is decoded). */
  readonly maxSourcePixels: number;
  readonly maxPaths: number;
  readonly maxSvgBytes: number;
  /** The tracer process's memory (measured: 150–300 MB plus some 5 bytes per SVG byte). */
  readonly maxMemoryBytes: number;
}

const MAX_SVG_BYTES = 32 * 1024 * 1024;

export const TRACE_LIMITS: TraceLimits = {
  maxSourcePixels: 40_000_000,
  maxPaths: 200_000,
  maxSvgBytes: MAX_SVG_BYTES,
  maxMemoryBytes: 512 * 1024 * 1024 + 16 * MAX_SVG_BYTES,
};
