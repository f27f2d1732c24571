import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { StudioContext } from '../context.js';
import { deliver, deliveryMode, watchClient } from '../jobs/delivery.js';
import { runImage } from '../jobs/image-job.js';
import { runMultimode } from '../jobs/multimode.js';
import { planBatch, planImage, type ImageFields } from '../jobs/plan.js';
import { jobRegistry } from '../jobs/registry.js';
import { editBody, generateBody, multimodeBody, parseBody } from '../jobs/request-schema.js';

// Classic generation: POST /api/generate, /api/edit, /api/generate/multimode.
// Thin: watch the client, parse, plan (lane, model, inputs), then deliver
// (which reserves the requestId only if the job really starts).

/** The fields of a body that describe the image (not the delivery). */
const imageFields = ({
  async: _async,
  requestId: _requestId,
  cancelOnDisconnect: _cancelOnDisconnect,
  ...fields
}: ImageFields & { async?: boolean; requestId?: string; cancelOnDisconnect?: boolean }): ImageFields => fields;

export function registerGenerateRoutes(app: FastifyInstance, ctx: StudioContext): void {
  const jobs = jobRegistry(ctx);

  app.post('/api/generate', async (request, reply) => {
    const client = watchClient(request, reply);
    const body = parseBody(generateBody, request.body);
    const mode = deliveryMode(request, body);
    const requestId = body.requestId ?? randomUUID();
    const plan = await planImage(ctx, requestId, imageFields(body), 'generate');
    return deliver(ctx, request, reply, {
      mode,
      client,
      reserve: () => jobs.reserve(requestId, 'generate', plan.lane, plan.request.model.id),
      work: (running) => runImage(ctx, running, plan),
    });
  });

  app.post('/api/edit', async (request, reply) => {
    const client = watchClient(request, reply);
    const { image, mask, ...body } = parseBody(editBody, request.body);
    const mode = deliveryMode(request, body);
    const requestId = body.requestId ?? randomUUID();
    const plan = await planImage(ctx, requestId, imageFields(body), 'edit', { image, mask });
    return deliver(ctx, request, reply, {
      mode,
      client,
      reserve: () => jobs.reserve(requestId, 'edit', plan.lane, plan.request.model.id),
      work: (running) => runImage(ctx, running, plan),
    });
  });

  app.post('/api/generate/multimode', async (request, reply) => {
    const client = watchClient(request, reply);
    const { outputs, n, ...body } = parseBody(multimodeBody, request.body);
    const mode = deliveryMode(request, body);
    const requestId = body.requestId ?? randomUUID();
    const { references, ...shared } = imageFields(body);
    // `outputs` lists each slot's overrides; `n` repeats the shared settings (default 2).
    const overrides = outputs ?? Array.from({ length: n ?? 2 }, () => ({}));
    const slots = overrides.map((override, slot) => ({ requestId: `${requestId}.${slot}`, fields: { ...shared, ...override } }));
    // The references are loaded once for the whole batch and shared by its slots.
    const plans = await planBatch(ctx, slots, { references }, 'generate');
    const lanes = new Set(plans.map((plan) => plan.lane));
    const models = new Set(plans.map((plan) => plan.request.model.id));
    return deliver(ctx, request, reply, {
      mode,
      client,
      reserve: () => jobs.reserve(requestId, 'multimode', lanes.size === 1 ? plans[0].lane : 'multimode', models.size === 1 ? plans[0].request.model.id : undefined, plans.length),
      work: (running) => runMultimode(ctx, running, plans),
    });
  });
}
