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
/** Most traces running at once (each keeps a core busy). */
export const TRACE_CONCURRENCY = 2;
/** Time budget of one trace, waiting for a slot included; SVC_TRACE_TIMEOUT_MS overrides it. */
export const TRACE_TIMEOUT_MS = 60_000;
