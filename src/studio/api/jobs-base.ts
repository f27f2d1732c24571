import { z } from 'zod';
import { lazy } from '../../common/lazy.js';
import { IMAGE_FORMATS } from './values.js';

// The pieces of stored jobs that several kinds share (image jobs and video jobs),
// apart so that each kind's module can import them without importing the others.

/** An input image as a job stores it: where it came from and its stored copy, never its bytes. */
export const inputDescriptor = lazy(() =>
  z.object({
    source: z.enum(['inline', 'history']),
    filename: z.string().optional(),
    format: z.enum(IMAGE_FORMATS),
    width: z.number().int(),
    height: z.number().int(),
    bytes: z.number().int(),
    /** The content address of the stored copy (a queued or retried job has its images after a restart). */
    sha256: z.string(),
  }),
);
export type InputDescriptor = z.infer<typeof inputDescriptor>;

/** The model of a slot, resolved once when the job was planned (aliases, the lane default, compatibility mapping). */
export const plannedModel = lazy(() =>
  z.object({
    /** What the client asked for (or the default then). */
    requested: z.string(),
    /** Our canonical id of what runs. */
    id: z.string(),
    /** The id sent upstream. */
    upstreamId: z.string(),
  }),
);
export type PlannedModel = z.infer<typeof plannedModel>;

/**
 * A common control the lane does not have and the spec does not forbid there:
 * dropped from the request and reported (as the AI SDK's call warnings), never
 * silently. Shown in the result and in `done.result`.
 */
export const laneWarning = lazy(() =>
  z.object({
    type: z.literal('unsupported'),
    field: z.string(),
    lane: z.string(),
  }),
);
export type LaneWarning = z.infer<typeof laneWarning>;

/** How `provider: auto` chose the lane: the lanes it passed over before it, and why each. */
export const autoRouting = lazy(() =>
  z.object({
    requested: z.literal('auto'),
    /** Lanes of the auto order tried before the one that runs, with the reason each was passed over. */
    skipped: z.record(z.string(), z.string()),
  }),
);
export type AutoRouting = z.infer<typeof autoRouting>;
