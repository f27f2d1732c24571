import type { CapabilityExtras } from '../types.js';
import {
  ALPHA_ASPECT_RATIOS,
  ALPHA_PLANNER_VERSIONS,
  ALPHA_RESOLUTIONS,
  DEFAULT_ALPHA_PLANNER,
  REFERENCE_TO_VIDEO_MAX_SECONDS,
  REFERENCE_TO_VIDEO_REFERENCES,
  VIDEO_DURATION_SECONDS,
  VIDEO_ASPECT_RATIOS,
  VIDEO_RESOLUTIONS,
} from './controls.js';
import { ALPHA_PHASES } from './phases.js';
import { ALPHA_SIZE_TABLE } from './sizes.js';

/** Spec: at most three input images in total (references, node parent image, agent current image). */
export const ALPHA_MAX_INPUT_IMAGES = 3;

/** What the alpha lanes add to GET /api/capabilities: planners, native sizes, the pipeline's phases, video. */
export const ALPHA_CAPABILITIES: CapabilityExtras = {
  values: {
    alphaPlanners: ALPHA_PLANNER_VERSIONS,
    alphaResolutions: ALPHA_RESOLUTIONS,
    alphaAspectRatios: ALPHA_ASPECT_RATIOS,
    /** Every native selection with its pixels (the size picker's values). */
    alphaSizes: ALPHA_SIZE_TABLE,
    /** The pipeline's steps, in order: the phase each publishes, its budget, its variable, its timeout code. */
    alphaPhases: Object.entries(ALPHA_PHASES).map(([step, phase]) => ({
      step,
      phase: phase.jobPhase,
      budgetSeconds: phase.budgetMs / 1000,
      variable: phase.env,
      timeoutCode: phase.timeoutCode,
    })),
    videoResolutions: VIDEO_RESOLUTIONS,
    videoAspectRatios: VIDEO_ASPECT_RATIOS,
    videoDurationSeconds: VIDEO_DURATION_SECONDS,
  },
  defaults: { alphaPlanner: DEFAULT_ALPHA_PLANNER },
  limits: {
    /** alpha, alpha-api: references + node parent image + agent current image. */
    alphaInputImages: ALPHA_MAX_INPUT_IMAGES,
    videoDurationSeconds: VIDEO_DURATION_SECONDS,
    referenceToVideoReferences: REFERENCE_TO_VIDEO_REFERENCES,
    referenceToVideoMaxSeconds: REFERENCE_TO_VIDEO_MAX_SECONDS,
  },
};
