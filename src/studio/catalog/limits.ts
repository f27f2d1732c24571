import { API_LIMITS } from '../api/index.js';
import { laneExtras } from './extras.js';

// The limits of the studio: the spec's Limits table as one view, the lanes'
// (each declares its own, from the same constants its module uses) plus the
// limits the spec leaves open (marked "ours").
export const LIMITS = {
  ...laneExtras('limits'),
  // Ours (the spec leaves these open):
  ...API_LIMITS,
  /** Largest reference image file (decoded from base64). */
  referenceMaxBytes: 20 * 1024 * 1024,
  /** Most pixels of a reference image (checked from its header before it is decoded). */
  referenceMaxPixels: 40_000_000,
  /** Largest request body (base64 references inflate by 4/3). */
  requestBodyMaxBytes: 100 * 1024 * 1024,
  historyRetentionDaysDefault: 7,
  /** Hours a finished job stays answerable at GET /api/jobs/:requestId. */
  jobRetentionHoursDefault: 24,
} as const;
