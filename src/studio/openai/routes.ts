import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ServiceError } from '../errors.js';
import {
  formFields,
  multipartBoundary,
  MultipartError,
  parseMultipart,
  type MultipartFile,
  type MultipartForm,
} from '../../common/multipart.js';
import { parseWith } from '../../common/validation.js';
import type { JobResult, LaneWarning, SlotPlan } from '../api/index.js';
import { LIMITS } from '../catalog/limits.js';
import type { StudioContext } from '../context.js';
import { deliver, fingerprintOf, watchClient } from '../jobs/delivery.js';
import { imageJob, planImageJob, type ImageFields, type ImagePlan, type PlanInputs } from '../jobs/plan.js';
import type { JobSpec } from '../jobs/running-job.js';
import type { StudioRoutes } from '../routes/plugin.js';
import { imagesResponse, plannedWarnings, WARNINGS_HEADER, warningsHeader } from './answer.js';
import { rewriteErrorPayload } from './errors.js';
import { openaiModel, openaiModels } from './models.js';
import {
  imageFieldsOf,
  OPENAI_HINTS,
  OPTION_FIELDS,
  openaiEditRequest,
  openaiGenerateRequest,
  type OpenAIImageRequest,
  type OptionName,
} from './requests.js';
import { streamJob, type StreamPrefix } from './stream.js';

// The OpenAI-compatible images API under /v1 (issue 31): what the official
// `openai` SDK calls, each image request an ordinary studio job planned by the
// same planner as /api/generate and /api/edit (queued in the engine, its events
// on /api/events, its images in history). Errors are answered in OpenAI's shape
// (errors.ts) by this plugin's onSend hook, whoever raised them: the security
// hook, the parsers, the planner, a lane, the 404 of an unknown /v1 route.

/** A multipart body, parsed: the form the SDK sends to /v1/images/edits. */
const FORM = Symbol('openai form');
type FormRequest = FastifyRequest & { [FORM]?: MultipartForm };

/** The form parts that are files; sent as text (a URL, base64) they are refused as missing files. */
const FILE_PARTS = ['image', 'image[]', 'mask'];

/** The form's text fields as an object (each sent once: the parser refuses a repeated one). */
const fieldsOf = (form: MultipartForm): Record<string, string> =>
  formFields({ fields: form.fields.filter(({ name }) => !FILE_PARTS.includes(name)), files: [] });

/** An uploaded file as the studio's image input (its bytes are checked when the planner loads it). */
const imageInputOf = (file: MultipartFile) => ({ data: file.data.toString('base64'), name: file.filename || file.name });

/** The edit's images: `image` or `image[]` (the first is edited, the others are references) and at most one `mask`. */
function editInputs(form: MultipartForm): PlanInputs {
  const images = form.files.filter((file) => file.name === 'image' || file.name === 'image[]');
  const masks = form.files.filter((file) => file.name === 'mask');
  const [image, ...references] = images;
  if (!image)
    throw new ServiceError('BAD_REQUEST', 'image: send the image to edit as a file part `image` (or `image[]`).', {
      details: { field: 'image' },
    });
  if (masks.length > 1) throw new ServiceError('BAD_REQUEST', 'mask: send at most one mask.', { details: { field: 'mask' } });
  const unknown = form.files.find((file) => !FILE_PARTS.includes(file.name));
  if (unknown)
    throw new ServiceError('BAD_REQUEST', `${unknown.name}: unknown file part (valid: ${FILE_PARTS.join(', ')}).`, {
      details: { field: unknown.name, valid: FILE_PARTS },
    });
  return {
    edit: { image: imageInputOf(image), ...(masks[0] ? { mask: imageInputOf(masks[0]) } : {}) },
    references: references.map(imageInputOf),
  };
}

/**
 * Plans the job of one /v1 request. A lane option the chosen lane lacks (`background` on delta) and
 * `style` (no lane has it) are dropped and recorded as the job's warnings, as the planner records
 * the common controls a lane lacks: OpenAI clients send them freely. A bad option value names the
 * OpenAI field the client sent.
 */
async function planJob(
  ctx: StudioContext,
  body: OpenAIImageRequest,
  inputs: PlanInputs,
  operation: 'generate' | 'edit',
  requestId: string,
): Promise<{ job: JobSpec; warnings: LaneWarning[] }> {
  const fields = imageFieldsOf(body);
  const lacking: OptionName[] = [];
  for (;;) {
    try {
      const options = Object.fromEntries(Object.entries(fields.options ?? {}).filter(([name]) => !(lacking as string[]).includes(name)));
      const plan = await planOutputs(ctx, { ...fields, options }, body.n ?? 1, inputs, operation, requestId);
      const dropped = [...(body.style !== undefined ? ['style'] : []), ...lacking.map((name) => OPTION_FIELDS[name])];
      const request = { ...plan.request, slots: plan.request.slots.map((slot) => withDropped(slot, dropped)) };
      const job = { ...imageJob(plan, requestId), request };
      return { job: (body.n ?? 1) > 1 ? { ...job, kind: 'multimode' } : { ...job, kind: operation }, warnings: plannedWarnings(request) };
    } catch (error) {
      const unknown = unknownOptions(error, fields.options ?? {});
      if (unknown.length === 0) throw openaiFieldError(error);
      lacking.push(...unknown);
    }
  }
}

/** The OpenAI option fields the error says the lane does not have (a lane with no options, or not these). */
function unknownOptions(error: unknown, options: Record<string, unknown>): OptionName[] {
  if (!(error instanceof ServiceError) || error.details?.field !== 'options' || !Array.isArray(error.details.unknown)) return [];
  const unknown = error.details.unknown as unknown[];
  return (Object.keys(OPTION_FIELDS) as OptionName[]).filter((name) => name in options && unknown.includes(name));
}

/** A bad value of a lane option, named by the OpenAI field that carried it (`options.background` → `background`). */
function openaiFieldError(error: unknown): unknown {
  const field = error instanceof ServiceError ? error.details?.field : undefined;
  const name = typeof field === 'string' && field.startsWith('options.') ? field.slice('options.'.length).split('.')[0] : undefined;
  if (!(error instanceof ServiceError) || name === undefined || !(name in OPTION_FIELDS)) return error;
  const openaiField = OPTION_FIELDS[name as OptionName];
  return new ServiceError(error.code, error.message.replace(`options.${name}`, openaiField), {
    details: { ...error.details, field: openaiField },
  });
}

/** A slot's plan with the /v1 fields dropped on its lane added to its warnings. */
const withDropped = (slot: SlotPlan, fields: readonly string[]): SlotPlan =>
  fields.length
    ? {
        ...slot,
        warnings: [...(slot.warnings ?? []), ...fields.map((field) => ({ type: 'unsupported' as const, field, lane: slot.lane }))],
      }
    : slot;

/** One output through the planner, or `n` slots of a batch (as /api/generate/multimode plans `n`). */
async function planOutputs(
  ctx: StudioContext,
  fields: ImageFields,
  n: number,
  inputs: PlanInputs,
  operation: 'generate' | 'edit',
  requestId: string,
): Promise<ImagePlan> {
  if (n === 1) return planImageJob(ctx, [{ requestId, fields }], inputs, operation);
  const slots = Array.from({ length: n }, (_, slot) => ({ requestId: `${requestId}.${slot}`, fields }));
  return planImageJob(ctx, slots, inputs, operation, { batch: true });
}

/** `http://<host>` of this request (the Host the security hook accepted), for absolute image URLs. */
const originOf = (request: FastifyRequest): string => `${request.protocol}://${request.host}`;

/** Registers one image route: parse, plan, then a JSON answer or an event stream. */
function addImageRoute(
  app: FastifyInstance,
  ctx: StudioContext,
  url: string,
  prefix: StreamPrefix,
  read: (request: FormRequest) => { body: OpenAIImageRequest; inputs: PlanInputs },
) {
  app.post(url, async (request: FormRequest, reply) => {
    const client = watchClient(request, reply);
    const { body, inputs } = read(request);
    const requestId = randomUUID();
    const { job: planned, warnings } = await planJob(ctx, body, inputs, prefix === 'image_edit' ? 'edit' : 'generate', requestId);
    const job: JobSpec = { ...planned, fingerprint: fingerprintOf(planned.kind, body) };
    // The studio's requestId where OpenAI puts its own (the SDK's `_request_id`): GET /api/jobs/:requestId follows it.
    reply.header('x-request-id', requestId);
    // What will not be applied, known from the plan: on a stream too, before its first event.
    if (warnings.length) reply.header(WARNINGS_HEADER, warningsHeader(warnings));
    if (body.stream) {
      await streamJob({ ctx, reply, client, job, request: body, prefix, planned: warnings });
      return reply;
    }
    const result = (await deliver(ctx, reply, { mode: 'sync', client, job, cancelOnDisconnect: true })) as JobResult;
    return reply.send(await imagesResponse(ctx, body, result, originOf(request)));
  });
}

const v1Routes: StudioRoutes = async (app, { ctx }) => {
  // Every error answer of this scope in OpenAI's shape (added first, so the 404 handler has it too).
  app.addHook('onSend', async (_request, reply, payload) => rewriteErrorPayload(reply.statusCode, payload));

  // Only /v1 reads multipart: the form is parsed whole (bounded by the studio's body limit); each image
  // is then checked by the planner as any reference is (size, pixels, type).
  app.addContentTypeParser('multipart/form-data', { parseAs: 'buffer', bodyLimit: LIMITS.requestBodyMaxBytes }, (request, body, done) => {
    const boundary = multipartBoundary(request.headers['content-type']);
    if (!boundary) return done(new ServiceError('BAD_REQUEST', 'The multipart body has no boundary in its Content-Type.'), undefined);
    try {
      (request as FormRequest)[FORM] = parseMultipart(body as Buffer, boundary);
      done(null, undefined);
    } catch (error) {
      done(error instanceof MultipartError ? new ServiceError('BAD_REQUEST', error.message) : (error as Error), undefined);
    }
  });

  app.setNotFoundHandler(async (request) => {
    throw new ServiceError(
      'ROUTE_NOT_FOUND',
      `No route ${request.method} ${request.url.split('?')[0]}: /v1 serves POST /v1/images/generations, POST /v1/images/edits and GET /v1/models.`,
    );
  });

  app.get('/models', async () => ({ object: 'list', data: openaiModels(ctx) }));
  // A lane-qualified id holds a slash: the SDK sends it encoded, a hand-written URL may not.
  app.get('/models/*', async (request) => openaiModel(ctx, (request.params as { '*': string })['*']));

  addImageRoute(app, ctx, '/images/generations', 'image_generation', (request) => {
    if (request[FORM])
      throw new ServiceError('UNSUPPORTED_MEDIA_TYPE', 'POST /v1/images/generations takes a JSON body.', {
        details: { accepted: ['application/json'] },
      });
    return { body: parseWith(openaiGenerateRequest, request.body, { hints: OPENAI_HINTS }), inputs: {} };
  });

  addImageRoute(app, ctx, '/images/edits', 'image_edit', (request) => {
    const form = request[FORM];
    if (!form)
      throw new ServiceError(
        'UNSUPPORTED_MEDIA_TYPE',
        'POST /v1/images/edits takes a multipart/form-data body (files image or image[], mask).',
        { details: { accepted: ['multipart/form-data'] } },
      );
    const body = parseWith(openaiEditRequest, fieldsOf(form), { hints: OPENAI_HINTS });
    return { body, inputs: editInputs(form) };
  });
};

export const openaiRoutes: StudioRoutes = async (app, options) => {
  await app.register(v1Routes, { ...options, prefix: '/v1' });
};
