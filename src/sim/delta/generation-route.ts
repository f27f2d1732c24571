import { setTimeout as delay } from 'node:timers/promises';
import type { SimRequest, SimResponse } from '../harness.js';
import { imageBase64, renderImage } from '../image-renderer.js';
import { parsePromptTriggers } from '../prompt-triggers.js';
import { failure, newTraceId } from './envelope.js';
import type { DeltaState } from './state.js';

// `POST /v1/image_generation` (contract §2–3): checks the body as the vendor
// does and answers JPEG images as base64 or links, inside the envelope.

export const DELTA_TRIGGERS = ['code', 'no-image', 'filtered', 'data-uri', 'bare-string', 'count-numbers', 'slow'] as const;

const MODELS = ['image-01', 'image-01-live'];
const RATIOS: Readonly<Record<string, { width: number; height: number; live: boolean }>> = {
  '1:1': { width: 1024, height: 1024, live: true },
  '16:9': { width: 1280, height: 720, live: true },
  '4:3': { width: 1152, height: 864, live: true },
  '3:2': { width: 1248, height: 832, live: true },
  '2:3': { width: 832, height: 1248, live: true },
  '3:4': { width: 864, height: 1152, live: true },
  '9:16': { width: 720, height: 1280, live: true },
  '21:9': { width: 1344, height: 576, live: false },
};
const PROMPT_MAX = 1500;

interface Parsed {
  readonly model: string;
  readonly prompt: string;
  readonly width: number;
  readonly height: number;
  readonly n: number;
  readonly responseFormat: 'url' | 'base64';
  readonly reference?: Buffer;
}

const isSide = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 512 && value <= 2048 && value % 8 === 0;

/** The body as the vendor reads it, or the 2013 detail of what is wrong. */
function parse(body: unknown): Parsed | string {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return 'body must be a JSON object';
  const record = body as Record<string, unknown>;
  const { model, prompt } = record;
  if (typeof model !== 'string' || !MODELS.includes(model)) return `model must be one of ${MODELS.join(', ')}`;
  if (typeof prompt !== 'string' || !prompt.trim()) return 'prompt is required';
  if (prompt.length > PROMPT_MAX) return `prompt exceeds ${PROMPT_MAX} characters`;
  let width = 1024;
  let height = 1024;
  if (record.aspect_ratio !== undefined) {
    const ratio = RATIOS[String(record.aspect_ratio)];
    if (!ratio || (model === 'image-01-live' && !ratio.live))
      return `aspect_ratio ${String(record.aspect_ratio)} is not supported by ${model}`;
    ({ width, height } = ratio);
  } else if (record.width !== undefined || record.height !== undefined) {
    if (model !== 'image-01') return 'width and height are only supported by image-01';
    if (!isSide(record.width) || !isSide(record.height)) return 'width and height must both be given, 512-2048 and multiples of 8';
    width = record.width;
    height = record.height;
  }
  const n = record.n ?? 1;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > 9) return 'n must be an integer from 1 to 9';
  const responseFormat = record.response_format ?? 'url';
  if (responseFormat !== 'url' && responseFormat !== 'base64') return 'response_format must be url or base64';
  for (const flag of ['prompt_optimizer', 'aigc_watermark']) {
    if (record[flag] !== undefined && typeof record[flag] !== 'boolean') return `${flag} must be a boolean`;
  }
  if (record.seed !== undefined && (typeof record.seed !== 'number' || !Number.isInteger(record.seed))) return 'seed must be an integer';
  let reference: Buffer | undefined;
  if (record.subject_reference !== undefined) {
    const list = record.subject_reference;
    if (!Array.isArray(list) || list.length !== 1) return 'subject_reference takes exactly one item';
    const item = list[0] as Record<string, unknown> | null;
    if (!item || item.type !== 'character' || typeof item.image_file !== 'string')
      return 'subject_reference[0] must be {"type":"character","image_file":...}';
    const match = /^data:image\/(jpeg|jpg|png);base64,(.+)$/s.exec(item.image_file);
    if (match) reference = Buffer.from(match[2], 'base64');
    else if (!item.image_file.startsWith('https://')) return 'subject_reference image_file must be an https URL or a JPEG/PNG data URL';
    if (reference && reference.length >= 10 * 1024 * 1024) return 'subject_reference image must be under 10MB';
  }
  return { model, prompt, width, height, n, responseFormat, reference };
}

export function registerGenerationRoute(state: DeltaState): void {
  state.simulator.route('POST', '/v1/image_generation', async (request: SimRequest, response: SimResponse) => {
    response.setHeader('trace-id', newTraceId());
    const answer = (error: ReturnType<typeof failure>) => response.json(error.status, error.body);
    const key = /^Bearer\s+(.+)$/i.exec(request.header('authorization') ?? '')?.[1]?.trim();
    if (!key) return answer(failure(1004, 'missing bearer token'));
    if (!state.accepts(key)) return answer(failure(2049));
    if (request.bodyError) return answer(failure(2013, 'body is not valid JSON'));
    const parsed = parse(request.body);
    if (typeof parsed === 'string') return answer(failure(2013, parsed));
    const { triggers, cleaned } = parsePromptTriggers(parsed.prompt, DELTA_TRIGGERS);
    if (triggers.has('code')) return answer(failure(triggers.value('code', 1000)));

    const wait = triggers.has('slow') ? triggers.value('slow', 2000) : state.latencyMs;
    try {
      if (wait > 0) await delay(wait, undefined, { signal: request.signal });
    } catch {
      return; // The client left.
    }
    let count = parsed.n;
    let failed = 0;
    if (triggers.has('no-image')) count = 0;
    if (triggers.has('filtered')) {
      failed = 1;
      count -= 1;
    }
    const images = await Promise.all(
      Array.from({ length: count }, (_, index) =>
        renderImage({
          prompt: cleaned || 'image',
          width: parsed.width,
          height: parsed.height,
          format: 'jpeg',
          seed: index,
          baseImage: parsed.reference,
        }),
      ),
    );
    const id = newTraceId();
    let data: Record<string, unknown>;
    if (parsed.responseFormat === 'url') {
      data = { image_urls: images.map((image, index) => state.publish(`${id}-${index}.jpeg`, image)) };
    } else {
      const encoded = images.map((image) =>
        triggers.has('data-uri') ? `data:image/jpeg;base64,${imageBase64(image)}` : imageBase64(image),
      );
      data = { image_base64: triggers.has('bare-string') ? (encoded[0] ?? '') : encoded };
    }
    const counts = triggers.has('count-numbers')
      ? { success_count: count, failed_count: failed }
      : { success_count: String(count), failed_count: String(failed) };
    return response.json(200, { id, data, metadata: counts, base_resp: { status_code: 0, status_msg: 'success' } });
  });
}
