import { randomUUID } from 'node:crypto';
import { parseWith } from '../../common/validation.js';
import { COMMON_SIZES, editRequest, generateRequest, multimodeRequest, REQUEST_ID_PATTERN, SIZE_RULE, API_LIMITS } from '../api/index.js';
import { deliver, deliveryMode, watchClient } from '../jobs/delivery.js';
import { imageJobSpec, planImageJob, type ImageFields } from '../jobs/plan.js';
import type { StudioRoutes } from './plugin.js';

// Classic generation: POST /api/generate, /api/edit, /api/generate/multimode.
// Thin: watch the client, parse, plan (lane, model, inputs), then deliver
// (which claims the requestId only if the job really starts).

/** What a client can send instead, per field, where the schema cannot say. */
const HINTS = {
  size: { examples: COMMON_SIZES, rule: SIZE_RULE },
  requestId: { pattern: REQUEST_ID_PATTERN.source },
  prompt: { minLength: 1, maxLength: API_LIMITS.promptMaxChars },
  n: { min: 1, max: API_LIMITS.multimodeMaxOutputs },
  outputs: { minItems: 1, maxItems: API_LIMITS.multimodeMaxOutputs },
};

/** The fields of a body that describe the image (not the delivery, not the inputs, not its place in the queue). */
const imageFields = ({
  async: _async,
  requestId: _requestId,
  cancelOnDisconnect: _cancelOnDisconnect,
  references: _references,
  priority: _priority,
  ...fields
}: ImageFields & { async?: boolean; requestId?: string; cancelOnDisconnect?: boolean; references?: unknown[]; priority?: number }): ImageFields => fields;

export const generateRoutes: StudioRoutes = async (app, { ctx }) => {
  app.post('/api/generate', async (request, reply) => {
    const client = watchClient(request, reply);
    const body = parseWith(generateRequest, request.body, { hints: HINTS });
    const mode = deliveryMode(request, body);
    const requestId = body.requestId ?? randomUUID();
    const plan = await planImageJob(ctx, [{ requestId, fields: imageFields(body) }], { references: body.references }, 'generate');
    return deliver(ctx, request, reply, { mode, client, job: imageJobSpec(plan, { requestId, kind: 'generate', priority: body.priority }) });
  });

  app.post('/api/edit', async (request, reply) => {
    const client = watchClient(request, reply);
    const { image, mask, ...body } = parseWith(editRequest, request.body, { hints: HINTS });
    const mode = deliveryMode(request, body);
    const requestId = body.requestId ?? randomUUID();
    const plan = await planImageJob(ctx, [{ requestId, fields: imageFields(body) }], { references: body.references, edit: { image, mask } }, 'edit');
    return deliver(ctx, request, reply, { mode, client, job: imageJobSpec(plan, { requestId, kind: 'edit', priority: body.priority }) });
  });

  app.post('/api/generate/multimode', async (request, reply) => {
    const client = watchClient(request, reply);
    const { outputs, n, ...body } = parseWith(multimodeRequest, request.body, { hints: HINTS });
    const mode = deliveryMode(request, body);
    const requestId = body.requestId ?? randomUUID();
    const shared = imageFields(body);
    // `outputs` lists each slot's overrides; `n` repeats the shared settings (default 2).
    const overrides = outputs ?? Array.from({ length: n ?? 2 }, () => ({}));
    const slots = overrides.map((override, slot) => ({ requestId: `${requestId}.${slot}`, fields: { ...shared, ...override } }));
    // The references are loaded once for the whole batch and shared by its slots.
    const plan = await planImageJob(ctx, slots, { references: body.references }, 'generate', { batch: true });
    return deliver(ctx, request, reply, { mode, client, job: imageJobSpec(plan, { requestId, kind: 'multimode', priority: body.priority }) });
  });
};

