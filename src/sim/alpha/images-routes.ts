import { setTimeout as delay } from 'node:timers/promises';
import { loadSharp } from '../../common/sharp.js';
import type { ErrorAnswer, SimRequest, SimResponse } from '../harness.js';
import { imageBase64, MIME_TYPES, renderImage } from '../image-renderer.js';
import { answer, authenticate, isRefusal } from './access.js';
import { spendCapReached } from './billing.js';
import {
  imageCostTicks,
  nearestSimRatio,
  SIM_ASPECT_RATIOS,
  SIM_IMAGE_MODELS,
  SIM_PIXELS,
  TICKS_PER_USD,
  type SimImageModel,
  type SimResolution,
} from './catalog.js';
import { alphaError, creditsExhausted, type ErrorShape } from './errors.js';
import type { AlphaState } from './state.js';
import { parseAlphaTriggers, type AlphaTriggers } from './triggers.js';

// `POST /v1/images/generations` and `POST /v1/images/edits` (contract §3–4):
// JSON bodies, `aspect_ratio`, lowercase `resolution` (wrong case or unknown
// values silently fall back to 1k, `4k` is a 503), `response_format` url or
// b64_json, JPEG renders at the vendor's pixel size, usage in ticks. Edits
// take `image` or `images` (up to 3, the `-pro` model 1) as data URLs or our
// own media links; `aspect_ratio` counts only with two or more sources.

const MAX_EDIT_IMAGES = 3;
const PROMPT_MAX_CHARS = 8000;
const QUALITIES = ['low', 'medium', 'high'];

interface ImageCall {
  readonly model: SimImageModel;
  readonly prompt: string;
  readonly n: number;
  readonly responseFormat: 'url' | 'b64_json';
  readonly aspectRatio: string | undefined;
  readonly resolution: SimResolution;
  readonly sources: readonly Buffer[];
}

type Parsed = ImageCall | ErrorAnswer;
const isError = (value: Parsed): value is ErrorAnswer => 'status' in value;

const DATA_URL = /^data:image\/[a-z0-9.+-]+;base64,([A-Za-z0-9+/=\s]+)$/i;

/** The bytes of one edit source: a data URL or one of our own links (anything else cannot be fetched here). */
function sourceBytes(state: AlphaState, value: unknown, shape: ErrorShape): Buffer | ErrorAnswer {
  const url = value && typeof value === 'object' ? (value as { url?: unknown }).url : undefined;
  if (typeof url !== 'string' || !url) return alphaError(shape, 400, 'Invalid request content: each source image needs a "url".');
  const data = DATA_URL.exec(url);
  const bytes = data ? Buffer.from(data[1], 'base64') : state.media.bytesOf(url);
  if (!bytes) return alphaError(shape, 400, `Invalid request content: could not fetch the image at ${url.slice(0, 80)}.`);
  const jpeg = bytes[0] === 0xff && bytes[1] === 0xd8;
  const png = bytes.subarray(1, 4).toString('latin1') === 'PNG';
  const webp = bytes.subarray(8, 12).toString('latin1') === 'WEBP';
  if (!jpeg && !png && !webp) return alphaError(shape, 400, 'Invalid request content: a source image is not a JPEG, PNG or WebP image.');
  return bytes;
}

function parseCall(state: AlphaState, request: SimRequest, kind: 'generations' | 'edits', shape: ErrorShape): Parsed {
  if (request.form || request.bodyError === 'invalid_multipart')
    return alphaError(shape, 400, 'Invalid request content: this endpoint takes a JSON body.');
  const body = request.body;
  if (!body || typeof body !== 'object' || Array.isArray(body))
    return alphaError(shape, 400, 'Invalid request content: the body must be a JSON object.');
  const record = body as Record<string, unknown>;
  for (const unsupported of ['size', 'style'])
    if (record[unsupported] !== undefined) return alphaError(shape, 400, `Argument not supported: ${unsupported}. Use aspect_ratio.`);
  const { model, prompt, n = 1, response_format: responseFormat = 'url', aspect_ratio: aspectRatio, resolution, quality } = record;
  if (typeof model !== 'string' || !model) return alphaError(shape, 400, 'Invalid request content: "model" is required.');
  if (!(SIM_IMAGE_MODELS as readonly string[]).includes(model))
    return alphaError(shape, 404, `The model ${model} does not exist or your team does not have access to it.`, 'model_not_found');
  if (typeof prompt !== 'string' || !prompt.trim()) return alphaError(shape, 400, 'Invalid request content: "prompt" is required.');
  if (prompt.length > PROMPT_MAX_CHARS)
    return alphaError(shape, 400, `Invalid request content: "prompt" is longer than ${PROMPT_MAX_CHARS} characters.`);
  if (!Number.isInteger(n) || (n as number) < 1 || (n as number) > 10)
    return alphaError(shape, 400, 'Invalid request content: "n" must be an integer from 1 to 10.');
  if (responseFormat !== 'url' && responseFormat !== 'b64_json')
    return alphaError(shape, 400, 'Invalid request content: "response_format" must be url or b64_json.');
  if (aspectRatio !== undefined && !SIM_ASPECT_RATIOS.includes(String(aspectRatio)))
    return alphaError(shape, 400, `Invalid request content: "aspect_ratio" must be one of ${SIM_ASPECT_RATIOS.join(', ')}.`);
  if (quality !== undefined && !QUALITIES.includes(String(quality)))
    return alphaError(shape, 400, 'Invalid request content: "quality" must be low, medium or high.');
  // Reported vendor behaviour: 4k is a tier this API does not serve; other unknown values fall back.
  if (resolution === '4k')
    return alphaError(shape, 503, 'model_service_unavailable: the 4k tier is not available for this model.', 'model_service_unavailable');
  const tier: SimResolution = resolution === '2k' ? '2k' : '1k';
  const sources: Buffer[] = [];
  if (kind === 'edits') {
    const { image, images } = record;
    if (image !== undefined && images !== undefined)
      return alphaError(shape, 400, 'Invalid request content: send "image" or "images", not both.');
    const list = images !== undefined ? images : image !== undefined ? [image] : undefined;
    if (!Array.isArray(list) || list.length === 0)
      return alphaError(shape, 400, 'Invalid request content: an edit needs "image" or "images".');
    const max = model === 'alpha-image-pro' ? 1 : MAX_EDIT_IMAGES;
    if (list.length > max)
      return alphaError(shape, 400, `Invalid request content: ${model} takes at most ${max} source image${max > 1 ? 's' : ''}.`);
    for (const item of list) {
      const bytes = sourceBytes(state, item, shape);
      if (!Buffer.isBuffer(bytes)) return bytes;
      sources.push(bytes);
    }
  }
  // Sources sent to the generations endpoint are silently ignored (still billed), as the vendor does.
  return {
    model: model as SimImageModel,
    prompt,
    n: n as number,
    responseFormat,
    aspectRatio: aspectRatio as string | undefined,
    resolution: tier,
    sources,
  };
}

/** The pixels of the output: the ratio asked for, except a single-source edit keeps its source's. */
async function outputSize(call: ImageCall): Promise<readonly [number, number]> {
  let ratio = call.aspectRatio && call.aspectRatio !== 'auto' ? call.aspectRatio : '1:1';
  if (call.sources.length === 1) {
    const sharp = await loadSharp();
    const { width = 1, height = 1 } = await sharp(call.sources[0]).metadata();
    ratio = nearestSimRatio(width, height);
  }
  return SIM_PIXELS[ratio][call.resolution];
}

/** The refusal a trigger asks for at the image step, if any. */
function triggeredRefusal(state: AlphaState, triggers: AlphaTriggers, shape: ErrorShape): ErrorAnswer | undefined {
  if (triggers.has('unauthorized'))
    return alphaError(shape, 401, 'The request does not have valid authentication credentials.', 'unauthenticated');
  if (triggers.has('forbidden')) return alphaError(shape, 403, 'The model is not available to your team.', 'permission_denied');
  if (triggers.has('model-not-found'))
    return alphaError(shape, 404, 'The model does not exist or your team does not have access to it.', 'model_not_found');
  if (triggers.has('ratelimit'))
    return alphaError(shape, 429, 'Too many requests: rate limit exceeded.', 'rate_limit_exceeded', {
      'retry-after': String(triggers.value('ratelimit', 7)),
    });
  if (triggers.has('credits')) return creditsExhausted(shape, state.tokens.account.teamId);
  if (triggers.has('server-error')) return alphaError(shape, 500, 'Internal error while generating the image.');
  if (triggers.has('unavailable'))
    return alphaError(shape, 503, 'model_service_unavailable: the image service is overloaded.', 'model_service_unavailable');
  return undefined;
}

/** One output item: a link (shaped by the triggers) or the bytes. */
function outputItem(
  state: AlphaState,
  bytes: Buffer,
  call: ImageCall,
  triggers: AlphaTriggers,
  revisedPrompt: string,
): Record<string, unknown> {
  if (call.responseFormat === 'b64_json') return { b64_json: imageBase64(bytes), revised_prompt: revisedPrompt };
  const name = state.media.put(
    triggers.has('url-not-image') ? Buffer.from('<html><body>not an image</body></html>') : bytes,
    'image/jpeg',
    { expired: triggers.has('url-expired') },
  );
  let url = state.media.url(name);
  if (triggers.has('url-redirect')) url = `${state.simulator.url}/media/redirect/${name}`;
  if (triggers.has('url-elsewhere')) url = `http://media.example.invalid/${name}`;
  if (triggers.has('url-private')) url = `https://10.0.0.7/media/${name}`;
  if (triggers.has('url-localhost')) url = `https://localhost:9/media/${name}`;
  if (triggers.has('url-huge')) url = `${state.simulator.url}/media/huge/${name}`;
  return { url, revised_prompt: revisedPrompt };
}

async function handleImages(state: AlphaState, kind: 'generations' | 'edits', request: SimRequest, response: SimResponse): Promise<void> {
  const promptText =
    typeof (request.body as { prompt?: unknown } | undefined)?.prompt === 'string' ? (request.body as { prompt: string }).prompt : '';
  const { triggers, cleaned } = parseAlphaTriggers(promptText);
  const shape: ErrorShape = triggers.has('object-errors') ? 'object' : 'grpc';
  const caller = authenticate(state, request, shape);
  if (isRefusal(caller)) return answer(response, caller);
  const call = parseCall(state, request, kind, shape);
  if (isError(call)) return answer(response, call);
  const refusal =
    triggeredRefusal(state, triggers, shape) ??
    (spendCapReached(state.billing) ? creditsExhausted(shape, state.tokens.account.teamId) : undefined);
  if (refusal) return answer(response, refusal);

  const wait = state.latencyMs + (triggers.has('slow-image') ? triggers.value('slow-image', 2000) : 0);
  if (wait > 0) {
    try {
      await delay(wait, undefined, { signal: request.signal });
    } catch {
      return; // The client gave up.
    }
  }
  if (triggers.has('malformed')) return response.send(200, '{"data":[{"url":"https://', 'application/json');
  const [width, height] = await outputSize(call);
  const format = triggers.has('url-png') ? 'png' : 'jpeg';
  const prompt = cleaned || 'image';
  const images = await Promise.all(
    Array.from({ length: call.n }, (_, seed) => renderImage({ prompt, width, height, format, seed, baseImage: call.sources[0] })),
  );
  const data = triggers.has('no-image') ? [] : images.map((bytes) => outputItem(state, bytes, call, triggers, prompt));
  const ticks = imageCostTicks(call.model, call.resolution) * call.n;
  state.generated += data.length;
  state.billing.usedCents += Math.round((ticks / TICKS_PER_USD) * 100);
  return response.json(200, { data, usage: { cost_in_usd_ticks: ticks } });
}

export function registerImagesRoutes(state: AlphaState): void {
  const { simulator } = state;
  simulator.route('POST', '/v1/images/generations', (request, response) => handleImages(state, 'generations', request, response));
  simulator.route('POST', '/v1/images/edits', (request, response) => handleImages(state, 'edits', request, response));

  // The temporary links: no auth; 403 once expired (as a signed storage link answers).
  const serve = (name: string, response: SimResponse) => {
    const file = state.media.get(name);
    if (file === 'expired') return response.send(403, 'Request has expired', 'text/plain');
    if (!file) return response.send(404, 'Not Found', 'text/plain');
    return response.send(200, file.bytes, file.type);
  };
  simulator.route('GET', '/media/:name', (request, response) => serve(request.params.name, response));
  simulator.route('GET', '/media/redirect/:name', (request, response) =>
    response.send(302, '', 'text/plain', { location: `https://media.example.invalid/${request.params.name}` }),
  );
  simulator.route('GET', '/media/huge/:name', (_request, response) =>
    response.send(200, Buffer.alloc(1024), MIME_TYPES.jpeg, { 'content-length': String(512 * 1024 * 1024) }),
  );
}
