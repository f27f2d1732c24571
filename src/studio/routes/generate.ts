import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { StudioContext } from '../context.js';
import { deliver, deliveryMode } from '../jobs/delivery.js';
import { runImage, type ImagePlan } from '../jobs/image-job.js';
import { runMultimode } from '../jobs/multimode.js';
import { planImage, type ImageFields } from '../jobs/plan.js';
import { jobRegistry } from '../jobs/registry.js';
import { editBody, generateBody, multimodeBody, parseBody } from '../jobs/request-schema.js';

// Classic generation: POST /api/generate, /api/edit, /api/generate/multimode.
// Thin: parse, plan (lane, model, inputs), reserve the requestId, deliver.

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
    const body = parseBody(generateBody, request.body);
    const mode = deliveryMode(request, body);
    const requestId = body.requestId ?? randomUUID();
    const plan = await planImage(ctx, requestId, imageFields(body), 'generate');
    const job = jobs.reserve(requestId, 'generate', plan.lane, plan.request.model.id);
    return deliver(ctx, request, reply, mode, job, (running) => runImage(ctx, running, plan));
  });

  app.post('/api/edit', async (request, reply) => {
    const { image, mask, ...body } = parseBody(editBody, request.body);
    const mode = deliveryMode(request, body);
    const requestId = body.requestId ?? randomUUID();
    const plan = await planImage(ctx, requestId, imageFields(body), 'edit', { image, mask });
    const job = jobs.reserve(requestId, 'edit', plan.lane, plan.request.model.id);
    return deliver(ctx, request, reply, mode, job, (running) => runImage(ctx, running, plan));
  });

  app.post('/api/generate/multimode', async (request, reply) => {
    const { outputs, n, ...body } = parseBody(multimodeBody, request.body);
    const mode = deliveryMode(request, body);
    const requestId = body.requestId ?? randomUUID();
    const shared = imageFields(body);
    // `outputs` lists each slot's overrides; `n` repeats the shared settings (default 2).
    const slots = outputs ?? Array.from({ length: n ?? 2 }, () => ({}));
    const plans: ImagePlan[] = [];
    for (const [slot, overrides] of slots.entries()) {
      plans.push(await planImage(ctx, `${requestId}.${slot}`, { ...shared, ...overrides }, 'generate'));
    }
    const lanes = new Set(plans.map((plan) => plan.lane));
    const models = new Set(plans.map((plan) => plan.request.model.id));
    const job = jobs.reserve(requestId, 'multimode', lanes.size === 1 ? plans[0].lane : 'multimode', models.size === 1 ? plans[0].request.model.id : undefined, plans.length);
    return deliver(ctx, request, reply, mode, job, (running) => runMultimode(ctx, running, plans));
  });
}
