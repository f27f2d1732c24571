import { NANO_FRUIT_2 } from '../beta-api/models.js';
import type { ProgramCredential } from '../program.js';
import type { LaneModule } from '../types.js';
import { cligenImage, cligenProgram } from './generate.js';

// The `cligen` lane: spawns the local generation CLI (contracts/cligen-local-cli-artifact.md)
// and takes the image it saved. Model nano-fruit-2 only, output fixed at
// 1024x1024 JPEG, free; at most 3 input images; no quality, size or format
// control and no mask (refused by the planner, naming the control).

/** Spec: output fixed at 1024x1024 JPEG. */
export const CLIGEN_OUTPUT = { width: 1024, height: 1024, format: 'jpeg' } as const;
/** Spec: at most 3 references (an edited image counts as one). */
const MAX_INPUT_IMAGES = 3;
/** Spec: process timeout 360 seconds. */
const TIMEOUT_MS = 360_000;

/** Contract §1: the override, then the vendor installer's locations, then PATH; run with the studio's HOME unless SVC_CLIGEN_HOME names another. */
const credential: ProgramCredential = {
  kind: 'binary',
  program: 'agy',
  overrideEnv: 'SVC_CLIGEN_BIN',
  installDirs: ['.local/bin', '.npm-global/bin'],
  homeEnv: 'SVC_CLIGEN_HOME',
};

export const cligenLane: LaneModule = {
  id: 'cligen',
  label: 'Local CLI',
  description: 'Spawns the local generation CLI; fixed 1024x1024 JPEG, free.',
  credential,
  codes: {
    missingCredential: 'CLIGEN_GENERATION_FAILED',
    tooManyReferences: 'CLIGEN_REF_TOO_MANY',
    maskUnsupported: 'CLIGEN_MASK_UNSUPPORTED',
    videoUnsupported: 'CLIGEN_VIDEO_UNSUPPORTED',
    answers: [
      'CLIGEN_TIMEOUT',
      'CLIGEN_QUOTA_EXHAUSTED',
      'CLIGEN_GENERATION_FAILED',
      'LANE_UNSUPPORTED',
      'INVALID_IMAGE_MODEL',
      'IMAGE_MODEL_UNSUPPORTED',
      'JOB_CANCELLED',
    ],
  },
  models: { list: [NANO_FRUIT_2], default: NANO_FRUIT_2.id },
  controls: [],
  // Spec: no quality, size or mask controls (output fixed at 1024x1024 JPEG).
  refusedControls: ['quality', 'size'],
  maxInputImages: MAX_INPUT_IMAGES,
  timeoutMs: TIMEOUT_MS,
  endpoints: {},
  adapter: {
    specificationVersion: 'v1',
    // Installed (the credential rule found it): its login cannot be probed, the CLI has no status command.
    probe: async (ctx) => ({ state: 'ready', reason: `Installed at ${cligenProgram(ctx, credential).path}; its login cannot be checked.` }),
    // Refuses the job before it is accepted when the CLI is not installed.
    preflight: (ctx) => void cligenProgram(ctx, credential),
    generate: (ctx, request, job) => cligenImage(ctx, cligenLane, credential, request, job),
    edit: (ctx, request, job) => cligenImage(ctx, cligenLane, credential, request, job),
  },
  capabilities: {
    limits: { cligenReferences: MAX_INPUT_IMAGES, cligenOutput: CLIGEN_OUTPUT, cligenProcessTimeoutSeconds: TIMEOUT_MS / 1000 },
  },
};
