import type { SimRequest, SimResponse } from '../harness.js';
import { MIME_TYPES, renderImage } from '../image-renderer.js';
import { parsePromptTriggers } from '../prompt-triggers.js';
import { dataError, vendorError } from './errors.js';
import { keep, newId, type GammaState, type Prediction } from './state.js';
import { GAMMA_TRIGGERS } from './triggers.js';

// The gamma vendor's routes under `/api/v1` (contract §1–4): upload a
// reference, submit a generation, poll its prediction (at `/prediction/` and
// `/result/`), list models; plus the files its links point at.

export const GAMMA_BASE_PATH = '/api/v1';
export const GAMMA_MODELS = { textToImage: 'lang/lang-image-2/text-to-image', edit: 'lang/lang-image-2/edit' } as const;
const QUALITIES = ['low', 'medium', 'high'];
const FORMATS = ['jpeg', 'png', 'webp'] as const;
const BACKGROUNDS = ['auto', 'opaque', 'transparent'];
const MAX_IMAGES = 10;

const sniff = (bytes: Buffer): 'png' | 'jpeg' | 'webp' | undefined => {
  if (bytes.subarray(0, 4).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47]))) return 'png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8) return 'jpeg';
  if (bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP') return 'webp';
  return undefined;
};

function authorized(state: GammaState, request: SimRequest, response: SimResponse): boolean {
  const key = /^Bearer\s+(.+)$/i.exec(request.header('authorization') ?? '')?.[1]?.trim();
  if (key && state.accepts(key)) return true;
  const refusal = vendorError(401, key ? 'Unauthorized: invalid api key' : 'Unauthorized: missing api key');
  void response.json(refusal.status, refusal.body);
  return false;
}

/** The upload answer's shape varies with the reference's index, so one request meets every shape clients read (§2). */
function uploadAnswer(url: string, filename: string): unknown {
  const index = Number(/reference-(\d+)/.exec(filename)?.[1] ?? 0);
  switch (index % 5) {
    case 0:
      return { code: 200, message: 'success', url };
    case 1:
      return { code: 200, message: 'success', data: { url } };
    case 2:
      return { code: 200, message: 'success', data: url };
    case 3:
      return { code: 200, message: 'success', data: { image_url: url } };
    default:
      return { code: 200, message: 'success', data: { download_url: url } };
  }
}

/** The submit body as the vendor checks it (flat, §3); the problem's text, or the prediction's facts. */
function parseSubmit(
  state: GammaState,
  body: unknown,
): (Omit<Prediction, 'id' | 'createdAt' | 'triggers' | 'polls' | 'prompt'> & { prompt: string }) | string {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return 'body must be a JSON object';
  const record = body as Record<string, unknown>;
  if ('input' in record) return 'unexpected field "input": this model takes a flat body';
  const { model, prompt, size = '1024x1024', quality = 'medium', output_format: format = 'jpeg', background = 'auto', images } = record;
  if (model !== GAMMA_MODELS.textToImage && model !== GAMMA_MODELS.edit)
    return `model must be ${GAMMA_MODELS.textToImage} or ${GAMMA_MODELS.edit}`;
  if (typeof prompt !== 'string' || !prompt.trim()) return 'prompt is required';
  const match = /^(\d{3,4})x(\d{3,4})$/.exec(String(size));
  const [width, height] = match ? [Number(match[1]), Number(match[2])] : [0, 0];
  if (!match || width < 256 || height < 256 || width > 3840 || height > 3840 || width % 16 || height % 16)
    return 'size must be WxH, sides 256-3840 in multiples of 16';
  if (!QUALITIES.includes(String(quality))) return `quality must be one of ${QUALITIES.join(', ')}`;
  if (!(FORMATS as readonly string[]).includes(String(format))) return `output_format must be one of ${FORMATS.join(', ')}`;
  if (!BACKGROUNDS.includes(String(background))) return `background must be one of ${BACKGROUNDS.join(', ')}`;
  if (background === 'transparent' && format === 'jpeg') return 'a transparent background needs output_format png or webp';
  for (const flag of ['enable_base64_output', 'enable_sync_mode'])
    if (record[flag] !== undefined && typeof record[flag] !== 'boolean') return `${flag} must be a boolean`;
  let inputs: Buffer[] = [];
  if (model === GAMMA_MODELS.edit) {
    if (!Array.isArray(images) || images.length < 1 || images.length > MAX_IMAGES) return `the edit model takes 1-${MAX_IMAGES} images`;
    const found = images.map((url) => (typeof url === 'string' ? state.uploads.get(url) : undefined));
    if (found.some((bytes) => !bytes)) return 'images must be URLs returned by uploadMedia';
    inputs = found as Buffer[];
  } else if (images !== undefined) {
    return 'the text-to-image model takes no images';
  }
  return { model, prompt, width, height, format: format as Prediction['format'], transparent: background === 'transparent', inputs };
}

/** Where the submit answer puts the id: `data.id` by default, elsewhere when a trigger asks (§3). */
function submitAnswer(prediction: Prediction): unknown {
  const { id, triggers } = prediction;
  const data = { status: 'processing', model: prediction.model, outputs: [], created_at: new Date(prediction.createdAt).toISOString() };
  if (triggers.has('id-top')) return { code: 200, message: 'success', id, data };
  if (triggers.has('id-request-id')) return { code: 200, message: 'success', request_id: id, data };
  if (triggers.has('id-data-request-id')) return { code: 200, message: 'success', data: { ...data, request_id: id } };
  if (triggers.has('id-prediction-id')) return { code: 200, message: 'success', predictionId: id, data };
  return { code: 200, message: 'success', data: { ...data, id } };
}

/** Renders the output once and answers the value `outputs[0]` carries, as the triggers shape it. */
async function outputOf(state: GammaState, prediction: Prediction): Promise<unknown> {
  const { triggers } = prediction;
  const name = `${prediction.id}.${prediction.format === 'jpeg' ? 'jpeg' : prediction.format}`;
  if (!prediction.output) {
    const bytes = await renderImage({
      prompt: prediction.prompt || 'image',
      width: prediction.width,
      height: prediction.height,
      format: prediction.format,
      background: prediction.transparent ? 'transparent' : 'opaque',
      baseImage: prediction.inputs[0],
    });
    if (triggers.has('output-data-uri')) return `data:${MIME_TYPES[prediction.format]};base64,${bytes.toString('base64')}`;
    if (triggers.has('output-not-image')) keep(state.files, name, { bytes: Buffer.from('<html>not an image</html>'), type: 'text/html' });
    else if (!triggers.has('output-missing')) keep(state.files, name, { bytes, type: MIME_TYPES[prediction.format] });
    prediction.output = `${state.simulator.url}/files/${name}`;
  }
  if (triggers.has('output-unsafe')) return `http://files.example.invalid/o/${name}`;
  if (triggers.has('output-huge')) return `${state.simulator.url}/files/huge/${name}`;
  return prediction.output;
}

/** One poll: `processing` until the prediction ran its time (and was polled once), then its end (§4). */
async function pollAnswer(state: GammaState, prediction: Prediction): Promise<unknown> {
  const { triggers } = prediction;
  prediction.polls += 1;
  const ran = prediction.polls >= 2 && Date.now() - prediction.createdAt >= state.latencyMs;
  let status = triggers.has('starting') && prediction.polls === 1 ? 'starting' : 'processing';
  let outputs: unknown[] = [];
  let result: unknown;
  let error = '';
  if (ran && !triggers.has('never')) {
    if (triggers.has('failed')) [status, error] = ['failed', 'The image could not be generated: content flagged by the safety system.'];
    else if (triggers.has('error-status')) [status, error] = ['error', 'worker crashed'];
    else if (triggers.has('canceled')) [status, error] = ['canceled', 'canceled by the platform'];
    else {
      status = triggers.has('done-succeeded') ? 'succeeded' : triggers.has('done-success') ? 'success' : 'completed';
      const output = await outputOf(state, prediction);
      if (triggers.has('output-result')) result = output;
      else outputs = [triggers.has('output-object') ? { url: output } : output];
    }
  }
  const data: Record<string, unknown> = {
    id: prediction.id,
    model: prediction.model,
    outputs,
    error,
    created_at: new Date(prediction.createdAt).toISOString(),
  };
  if (result !== undefined) data.result = result;
  if (triggers.has('status-top')) return { code: 200, message: 'success', status, data };
  return { code: 200, message: 'success', data: { ...data, status } };
}

export function registerGammaRoutes(state: GammaState): void {
  const { simulator } = state;
  const base = GAMMA_BASE_PATH;

  simulator.route('POST', `${base}/model/uploadMedia`, async (request, response) => {
    if (!authorized(state, request, response)) return;
    const file = request.form?.files.find((part) => part.name === 'file');
    if (!file) return response.json(400, vendorError(400, 'multipart part "file" is required').body);
    const format = sniff(file.data);
    if (!format) return response.json(400, vendorError(400, 'unsupported file type').body);
    const name = `uploads/${newId('ref')}.${format}`;
    const url = `${simulator.url}/files/${name}`;
    keep(state.files, name, { bytes: file.data, type: MIME_TYPES[format] });
    keep(state.uploads, url, file.data);
    return response.json(200, uploadAnswer(url, file.filename));
  });

  simulator.route('POST', `${base}/model/generateImage`, async (request, response) => {
    if (!authorized(state, request, response)) return;
    if (request.bodyError) return response.json(400, vendorError(400, 'body is not valid JSON').body);
    const parsed = parseSubmit(state, request.body);
    if (typeof parsed === 'string') return response.json(400, vendorError(400, parsed).body);
    const { triggers, cleaned } = parsePromptTriggers(parsed.prompt, GAMMA_TRIGGERS);
    if (triggers.has('unauthorized')) return response.json(401, vendorError(401, 'Unauthorized: invalid api key').body);
    if (triggers.has('ratelimit')) return response.json(429, vendorError(429, 'Too many requests, slow down').body, { 'retry-after': '3' });
    if (triggers.has('server-error')) return response.json(500, dataError(500, 'inference backend unavailable').body);
    const prediction: Prediction = { ...parsed, id: newId('pred'), createdAt: Date.now(), prompt: cleaned, triggers, polls: 0 };
    keep(state.predictions, prediction.id, prediction);
    if (triggers.has('no-id')) return response.json(200, { code: 200, message: 'success', data: { status: 'processing', outputs: [] } });
    return response.json(200, submitAnswer(prediction));
  });

  for (const path of [`${base}/model/prediction/:id`, `${base}/model/result/:id`]) {
    simulator.route('GET', path, async (request, response) => {
      if (!authorized(state, request, response)) return;
      const prediction = state.predictions.get(request.params.id);
      if (!prediction) return response.json(404, vendorError(404, 'prediction not found').body);
      return response.json(200, await pollAnswer(state, prediction));
    });
  }

  simulator.route('GET', `${base}/models`, (request, response) => {
    if (!authorized(state, request, response)) return;
    return response.json(200, { code: 200, message: 'success', data: Object.values(GAMMA_MODELS).map((id) => ({ id, type: 'image' })) });
  });

  // Links: uploads and outputs, without auth (§1). `huge/` declares a body far over any client's limit.
  simulator.route('GET', '/files/uploads/:name', (request, response) => serveFile(state, `uploads/${request.params.name}`, response));
  simulator.route('GET', '/files/:name', (request, response) => serveFile(state, request.params.name, response));
  simulator.route('GET', '/files/huge/:name', (_request, response) =>
    response.send(200, Buffer.alloc(1024), 'image/png', { 'content-length': String(512 * 1024 * 1024) }),
  );
}

function serveFile(state: GammaState, name: string, response: SimResponse): Promise<void> {
  const file = state.files.get(name);
  if (!file) return response.json(404, vendorError(404, 'file not found').body);
  return response.send(200, file.bytes, file.type);
}
