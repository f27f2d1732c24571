import { NANO_FRUIT_2 } from '../beta-api/models.js';
import type { LaneModule } from '../types.js';

// The `cligen` lane: spawns a local generation program with a prompt flag;
// fixed 1024x1024 JPEG, free. Not built yet: listed, answering LANE_NOT_AVAILABLE.

/** Spec: output fixed at 1024x1024 JPEG. */
export const CLIGEN_OUTPUT = { width: 1024, height: 1024, format: 'jpeg' } as const;

export const cligenLane: LaneModule = {
  id: 'cligen',
  label: 'Local CLI',
  description: 'Spawns the local generation CLI; fixed 1024x1024 JPEG, free.',
  credential: { kind: 'binary', program: 'agy', overrideEnv: 'SVC_CLIGEN_BIN' },
  codes: {
    missingCredential: 'CLIGEN_GENERATION_FAILED',
    tooManyReferences: 'CLIGEN_REF_TOO_MANY',
    videoUnsupported: 'CLIGEN_VIDEO_UNSUPPORTED',
    answers: ['CLIGEN_TIMEOUT', 'CLIGEN_QUOTA_EXHAUSTED'],
  },
  models: { list: [NANO_FRUIT_2], default: NANO_FRUIT_2.id },
  controls: [],
  maxInputImages: 3,
  // Spec: process timeout 360 seconds.
  timeoutMs: 360_000,
  endpoints: {},
};
