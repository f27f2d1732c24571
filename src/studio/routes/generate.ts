import { parseWith } from '../../common/validation.js';
import { COMMON_SIZES, editRequest, generateRequest, multimodeRequest, REQUEST_ID_PATTERN, SIZE_RULE, API_LIMITS } from '../api/index.js';
import { liftLaneOptions } from '../catalog/top-level-options.js';
import { imageJob, planImageJob, type ImageFields } from '../jobs/plan.js';
import { addJobRoute } from '../jobs/route.js';
import type { StudioRoutes } from './plugin.js';

// Classic generation: POST /api/generate, /api/edit, /api/generate/multimode.
// Each is a parser and a planner (lane, model, inputs) on the one job route.

/** What a client can send instead, per field, where the schema cannot say. */
export const IMAGE_HINTS = {
  size: { examples: COMMON_SIZES, rule: SIZE_RULE },
  requestId: { pattern: REQUEST_ID_PATTERN.source },
  prompt: { minLength: 1, maxLength: API_LIMITS.promptMaxChars },
  n: { min: 1, max: API_LIMITS.multimodeMaxOutputs },
  outputs: { minItems: 1, maxItems: API_LIMITS.multimodeMaxOutputs },
};

/** The fields of a body that describe the image (not the delivery, not the inputs, not its place in the queue). */
export const imageFields = ({
  async: _async,
  requestId: _requestId,
  cancelOnDisconnect: _cancelOnDisconnect,
  references: _references,
  priority: _priority,
  ...fields
}: ImageFields & {
  async?: boolean;
  requestId?: string;
  cancelOnDisconnect?: boolean;
  references?: unknown[];
  priority?: number;
}): ImageFields => fields;

export const generateRoutes: StudioRoutes = async (app, { ctx }) => {
  addJobRoute(app, ctx, {
    url: '/api/generate',
    parse: (request) => parseWith(generateRequest, liftLaneOptions(request.body, generateRequest), { hints: IMAGE_HINTS }),
    async plan(ctx, body, requestId) {
      const plan = await planImageJob(ctx, [{ requestId, fields: imageFields(body) }], { references: body.references }, 'generate');
      return { ...imageJob(plan, requestId), kind: 'generate', request: plan.request };
    },
  });

  addJobRoute(app, ctx, {
    url: '/api/edit',
    parse: (request) => parseWith(editRequest, liftLaneOptions(request.body, editRequest), { hints: IMAGE_HINTS }),
    async plan(ctx, { image, mask, ...body }, requestId) {
      const plan = await planImageJob(
        ctx,
        [{ requestId, fields: imageFields(body) }],
        { references: body.references, edit: { image, mask } },
        'edit',
      );
      return { ...imageJob(plan, requestId), kind: 'edit', request: plan.request };
    },
  });

  addJobRoute(app, ctx, {
    url: '/api/generate/multimode',
    parse: (request) => parseWith(multimodeRequest, liftLaneOptions(request.body, multimodeRequest), { hints: IMAGE_HINTS }),
    async plan(ctx, { outputs, n, ...body }, requestId) {
      const shared = imageFields(body);
      // `outputs` lists each slot's overrides; `n` repeats the shared settings (default 2).
      const overrides = outputs ?? Array.from({ length: n ?? 2 }, () => ({}));
      const slots = overrides.map((override, slot) => ({ requestId: `${requestId}.${slot}`, fields: { ...shared, ...override } }));
      // The references are loaded once for the whole batch and shared by its slots.
      const plan = await planImageJob(ctx, slots, { references: body.references }, 'generate', { batch: true });
      return { ...imageJob(plan, requestId), kind: 'multimode', request: plan.request };
    },
  });
};
