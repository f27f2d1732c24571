import { setTimeout as delay } from 'node:timers/promises';
import { loadSharp } from '../../common/sharp.js';
import { formField, type ErrorAnswer, type MultipartForm, type SimRequest, type SimResponse } from '../harness.js';
import { imageBase64, renderImage } from '../image-renderer.js';
import { answer, checkLaneAccess, surfaceHeaders } from './access.js';
import {
  MAX_EDIT_IMAGE_BYTES,
  MAX_EDIT_IMAGES,
  MAX_IMAGES_PER_REQUEST,
  MAX_MASK_BYTES,
  MAX_PARTIAL_IMAGES,
  MAX_PROMPT_CHARS,
  imageOutputTokens,
  invalid,
  isProblem,
  parseImageSettings,
  textTokens,
  type ImageSettings,
  type InvalidParameter,
} from './catalog.js';
import { apiError, invalidAnswer, invalidJson, type Lane } from './errors.js';
import { scriptedFailure } from './scripted.js';
import type { ResponsesState } from './state.js';
import { parseTriggers, type Triggers } from './triggers.js';

// The classic images endpoints (contract §6): JSON or SSE generations and
// multipart edits on the api lane; JSON generations and edits on the
// subscription backend.

type Kind = 'generation' | 'edit';

interface ImagesJob {
  readonly lane: Lane;
  readonly kind: Kind;
  readonly prompt: string;
  readonly triggers: Triggers;
  readonly settings: ImageSettings;
  readonly count: number;
  readonly stream: boolean;
  readonly inputImages: readonly Buffer[];
}

const asRecord = (value: unknown): Record<string, unknown> | undefined =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

const IMAGE_SIGNATURES: readonly [string, (data: Buffer) => boolean][] = [
  ['png', (data) => data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))],
  ['jpeg', (data) => data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff],
  ['webp', (data) => data.subarray(0, 4).toString('latin1') === 'RIFF' && data.subarray(8, 12).toString('latin1') === 'WEBP'],
];

function sniffImage(data: Buffer): string | undefined {
  return IMAGE_SIGNATURES.find(([, test]) => test(data))?.[0];
}

/** Fields shared by generations and edits: prompt, n, response_format, then the image settings. */
function parseCommon(lane: Lane, kind: Kind, body: Record<string, unknown>, inputImages: Buffer[]): ImagesJob | InvalidParameter {
  if (typeof body.prompt !== 'string' || !body.prompt)
    return invalid('prompt', "Missing required parameter: 'prompt'.", 'missing_required_parameter');
  if (body.prompt.length > MAX_PROMPT_CHARS)
    return invalid(
      'prompt',
      `Invalid 'prompt': string too long. Expected a string with maximum length ${MAX_PROMPT_CHARS}, but got a string with length ${body.prompt.length} instead.`,
      'string_above_max_length',
    );
  const count = body.n === undefined ? 1 : body.n;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > MAX_IMAGES_PER_REQUEST) {
    return invalid('n', `Invalid 'n': expected an integer from 1 to ${MAX_IMAGES_PER_REQUEST}.`);
  }
  if (body.response_format !== undefined && body.response_format !== 'b64_json') {
    return invalid(
      'response_format',
      "Unknown parameter: 'response_format'. This model always returns base64-encoded images.",
      'unknown_parameter',
    );
  }
  const settings = parseImageSettings(body, '');
  if (isProblem(settings)) return settings;
  const { triggers, cleaned } = parseTriggers(body.prompt);
  return { lane, kind, prompt: cleaned, triggers, settings, count, stream: body.stream === true, inputImages };
}

/** Multipart fields arrive as strings; numbers and booleans are converted before validation. */
function multipartBody(form: MultipartForm): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const name of [
    'prompt',
    'model',
    'size',
    'quality',
    'background',
    'output_format',
    'moderation',
    'input_fidelity',
    'response_format',
    'user',
  ]) {
    const value = formField(form, name);
    if (value !== undefined) body[name] = value;
  }
  for (const name of ['n', 'output_compression', 'partial_images']) {
    const value = formField(form, name);
    if (value !== undefined) body[name] = /^-?\d+$/.test(value.trim()) ? Number(value) : value;
  }
  const stream = formField(form, 'stream');
  if (stream !== undefined) body.stream = stream === 'true';
  return body;
}

async function editImagesFromForm(form: MultipartForm): Promise<Buffer[] | InvalidParameter> {
  const files = form.files.filter((file) => file.name === 'image' || file.name === 'image[]');
  if (!files.length) return invalid('image', "Missing required parameter: 'image'.", 'missing_required_parameter');
  if (files.length > MAX_EDIT_IMAGES) return invalid('image', `Invalid 'image': at most ${MAX_EDIT_IMAGES} images are allowed.`);
  for (const file of files) {
    if (file.data.length > MAX_EDIT_IMAGE_BYTES)
      return invalid('image', `Invalid 'image': '${file.filename}' is larger than 50 MB.`, 'image_file_too_large');
    if (!sniffImage(file.data)) {
      return invalid(
        'image',
        `Invalid file '${file.filename}': unsupported mimetype ('${file.contentType}'). Supported file formats are 'image/jpeg', 'image/png', and 'image/webp'.`,
        'invalid_image_format',
      );
    }
  }
  const mask = form.files.find((file) => file.name === 'mask');
  if (mask) {
    if (sniffImage(mask.data) !== 'png') return invalid('mask', "Invalid 'mask': the mask must be a PNG image.", 'invalid_image_format');
    if (mask.data.length > MAX_MASK_BYTES)
      return invalid('mask', "Invalid 'mask': the mask must be smaller than 4 MB.", 'image_file_too_large');
    try {
      const sharp = await loadSharp();
      const [imageMeta, maskMeta] = await Promise.all([sharp(files[0].data).metadata(), sharp(mask.data).metadata()]);
      if (imageMeta.width !== maskMeta.width || imageMeta.height !== maskMeta.height) {
        return invalid('mask', "Invalid 'mask': the mask must have the same dimensions as the first image.");
      }
    } catch {
      return invalid('image', 'The image data could not be decoded.', 'invalid_image');
    }
  }
  return files.map((file) => file.data);
}

async function editImagesFromJson(body: Record<string, unknown>): Promise<Buffer[] | InvalidParameter> {
  const images = body.images;
  if (!Array.isArray(images) || !images.length)
    return invalid('images', "Missing required parameter: 'images'.", 'missing_required_parameter');
  if (images.length > MAX_EDIT_IMAGES) return invalid('images', `Invalid 'images': at most ${MAX_EDIT_IMAGES} images are allowed.`);
  const decoded: Buffer[] = [];
  for (let index = 0; index < images.length; index += 1) {
    const url = asRecord(images[index])?.image_url;
    const match = typeof url === 'string' ? /^data:image\/[\w.+-]+;base64,(.*)$/s.exec(url) : null;
    if (!match)
      return invalid(
        `images[${index}].image_url`,
        `Invalid 'images[${index}].image_url': expected a base64 image data URL.`,
        'invalid_image_url',
      );
    const data = Buffer.from(match[1], 'base64');
    if (!sniffImage(data)) return invalid(`images[${index}].image_url`, 'The image data could not be decoded.', 'invalid_image');
    decoded.push(data);
  }
  return decoded;
}

function imagesUsage(job: ImagesJob): Record<string, unknown> {
  const text = textTokens(job.prompt);
  const imageInput = job.inputImages.length * 194;
  const output = imageOutputTokens(job.settings) * job.count;
  return {
    input_tokens: text + imageInput,
    input_tokens_details: { text_tokens: text, image_tokens: imageInput },
    output_tokens: output,
    output_tokens_details: { image_tokens: output, text_tokens: 0 },
    total_tokens: text + imageInput + output,
  };
}

function render(job: ImagesJob, index: number, partialIndex?: number): Promise<Buffer> {
  const { settings } = job;
  return renderImage({
    prompt: job.prompt,
    width: settings.width,
    height: settings.height,
    format: settings.outputFormat,
    background: settings.background,
    compression: settings.compression,
    seed: index,
    baseImage: job.inputImages[0],
    ...(partialIndex === undefined ? {} : { quality: 'partial' as const, partialIndex }),
  });
}

async function deliver(job: ImagesJob, state: ResponsesState, request: SimRequest, response: SimResponse): Promise<void> {
  const { settings } = job;
  const created = Math.floor(Date.now() / 1000);
  const described = {
    background: settings.background,
    output_format: settings.outputFormat,
    quality: settings.quality,
    size: settings.size,
  };
  if (job.triggers.has('slow')) {
    try {
      await delay(job.triggers.value('slow', 2000), undefined, { signal: request.signal });
    } catch {
      return;
    }
  }
  if (job.triggers.has('disconnect') && !job.stream) return response.cut('cut-by-simulator');

  if (job.stream && job.lane === 'api') {
    const prefix = job.kind === 'generation' ? 'image_generation' : 'image_edit';
    if (!response.startStream(200, {}, { quirks: job.triggers.has('wire-quirks') })) return;
    const partials = Math.min(job.triggers.has('fewer-partials') ? 1 : settings.partialImages, MAX_PARTIAL_IMAGES);
    for (let index = 0; index < job.count; index += 1) {
      for (let partial = 0; partial < partials; partial += 1) {
        const draft = await render(job, index, partial + (MAX_PARTIAL_IMAGES - partials));
        const event = {
          type: `${prefix}.partial_image`,
          b64_json: imageBase64(draft),
          created_at: created,
          ...described,
          partial_image_index: partial,
        };
        if (
          !(await response.event(event.type, job.triggers.has('malformed') && partial === 0 ? JSON.stringify(event).slice(0, 64) : event))
        )
          return;
        if (job.triggers.has('disconnect')) return response.cut('cut-by-simulator');
      }
      if (job.triggers.has('disconnect')) return response.cut('cut-by-simulator');
      if (job.triggers.has('stall')) {
        try {
          await delay(job.triggers.value('stall', 2000), undefined, { signal: request.signal });
        } catch {
          return;
        }
      }
      const image = await render(job, index);
      const event = {
        type: `${prefix}.completed`,
        b64_json: imageBase64(image),
        created_at: created,
        ...described,
        usage: imagesUsage({ ...job, count: 1 }),
      };
      if (!(await response.event(event.type, event))) return;
    }
    return response.endStream();
  }

  if (job.triggers.has('stall')) {
    try {
      await delay(job.triggers.value('stall', 2000), undefined, { signal: request.signal });
    } catch {
      return;
    }
  }
  const images = await Promise.all(Array.from({ length: job.count }, (_, index) => render(job, index)));
  const body = { created, ...described, data: images.map((image) => ({ b64_json: imageBase64(image) })), usage: imagesUsage(job) };
  if (job.lane === 'oauth') state.usage.consume();
  if (job.triggers.has('malformed')) {
    const json = JSON.stringify(body);
    return response.send(200, json.slice(0, Math.floor(json.length / 2)), 'application/json');
  }
  return response.json(200, body);
}

async function handleImages(lane: Lane, kind: Kind, state: ResponsesState, request: SimRequest, response: SimResponse): Promise<void> {
  surfaceHeaders(state, lane, response);
  const denied = checkLaneAccess(state, lane, request);
  if (denied) return answer(response, denied);
  const fail = (problem: InvalidParameter | ErrorAnswer) => answer(response, 'body' in problem ? problem : invalidAnswer(lane, problem));

  let body: Record<string, unknown> | undefined;
  let inputImages: Buffer[] = [];
  if (lane === 'api' && kind === 'edit') {
    if (!request.form) {
      const contentType = request.header('content-type') ?? 'none';
      return fail(
        apiError(400, `Invalid Content-Type header (${contentType}), expected multipart/form-data.`, { code: 'invalid_content_type' }),
      );
    }
    const images = await editImagesFromForm(request.form);
    if (isProblem(images)) return fail(images);
    body = multipartBody(request.form);
    inputImages = images;
  } else {
    if (request.bodyError) return answer(response, invalidJson(lane));
    body = asRecord(request.body);
    if (!body) return fail(invalid('', 'The request body must be a JSON object.', 'invalid_type'));
    if (kind === 'edit') {
      const images = await editImagesFromJson(body);
      if (isProblem(images)) return fail(images);
      inputImages = images;
    }
  }
  const job = parseCommon(lane, kind, body, inputImages);
  if (isProblem(job)) return fail(job);
  const scripted = scriptedFailure(job.triggers, {
    lane,
    model: job.settings.model,
    moderation: job.settings.moderation,
    inStream: false,
    planType: state.tokens.account.planType,
  });
  if (scripted) return answer(response, scripted);
  return deliver(job, state, request, response);
}

export function registerImagesRoutes(state: ResponsesState): void {
  const { simulator } = state;
  simulator.route('POST', '/v1/images/generations', (request, response) => handleImages('api', 'generation', state, request, response));
  simulator.route('POST', '/v1/images/edits', (request, response) => handleImages('api', 'edit', state, request, response));
  simulator.route('POST', '/backend-api/codex/images/generations', (request, response) =>
    handleImages('oauth', 'generation', state, request, response),
  );
  simulator.route('POST', '/backend-api/codex/images/edits', (request, response) =>
    handleImages('oauth', 'edit', state, request, response),
  );
}
