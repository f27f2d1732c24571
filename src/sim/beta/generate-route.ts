import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { ErrorAnswer, SimRequest, SimResponse } from '../harness.js';
import { imageBase64, renderImage } from '../image-renderer.js';
import { findModel, INPUT_IMAGE_TOKENS, pixelSize, textTokens, type SimModel, type Surface } from './catalog.js';
import { parseGenerateBody, type GenerateJob } from './generate-request.js';
import { checkAccess } from './access.js';
import { invalidArgument, modelNotFound, resourceExhausted, rpcError } from './status-errors.js';
import type { BetaState } from './state.js';

// `POST …/models/{MODEL}:generateContent` on both surfaces (contract §1, §4, §5):
// the key surface under `/v1beta/models/`, the cloud surface under
// `/v1/projects/{PROJECT}/locations/{LOCATION}/publishers/google/models/`.
// Answers carry inline image parts, text parts, finish reasons, safety blocks
// and usage metadata; prompt triggers script the failures.

const SAFETY_RATINGS = [
  { category: 'HARM_CATEGORY_HARASSMENT', probability: 'NEGLIGIBLE' },
  { category: 'HARM_CATEGORY_HATE_SPEECH', probability: 'NEGLIGIBLE' },
  { category: 'HARM_CATEGORY_SEXUALLY_EXPLICIT', probability: 'NEGLIGIBLE' },
  { category: 'HARM_CATEGORY_DANGEROUS_CONTENT', probability: 'NEGLIGIBLE' },
];

const answer = (response: SimResponse, error: ErrorAnswer): Promise<void> => response.json(error.status, error.body, error.headers);

/** `name:generateContent` → its two halves. */
function splitAction(segment: string): { model: string; action: string } {
  const colon = segment.lastIndexOf(':');
  return colon === -1 ? { model: segment, action: '' } : { model: segment.slice(0, colon), action: segment.slice(colon + 1) };
}

function usageMetadata(job: GenerateJob, model: SimModel, imageCount: number, thoughtTokens = 0) {
  const promptText = textTokens(job.prompt);
  const promptImages = job.images.length * INPUT_IMAGE_TOKENS;
  const imageTokens = imageCount * (model.imageTokens[job.imageSize] ?? model.imageTokens['1K'] ?? 1290);
  const candidates = imageTokens + 12;
  return {
    promptTokenCount: promptText + promptImages,
    candidatesTokenCount: candidates,
    totalTokenCount: promptText + promptImages + candidates + thoughtTokens,
    promptTokensDetails: [
      { modality: 'TEXT', tokenCount: promptText },
      ...(promptImages ? [{ modality: 'IMAGE', tokenCount: promptImages }] : []),
    ],
    candidatesTokensDetails: [
      { modality: 'IMAGE', tokenCount: imageTokens },
      { modality: 'TEXT', tokenCount: 12 },
    ],
    thoughtsTokenCount: thoughtTokens,
  };
}

const responseId = (): string => randomBytes(12).toString('base64url');

/**
 * Renders the image a job asks for: the ratio and size's pixels, painted over the first input
 * image when there is one. A thought's draft is a coarse quarter-size sketch.
 */
async function render(job: GenerateJob, draft = false): Promise<{ mimeType: string; data: string }> {
  const full = pixelSize(job.aspectRatio, job.imageSize);
  const [width, height] = draft ? [Math.round(full.width / 4), Math.round(full.height / 4)] : [full.width, full.height];
  const base = job.images.find((image) => ['image/png', 'image/jpeg', 'image/webp'].includes(image.mimeType));
  const format = job.outputMimeType === 'image/jpeg' ? 'jpeg' : 'png';
  const bytes = await renderImage({
    prompt: job.prompt,
    width,
    height,
    format,
    baseImage: base?.data,
    ...(draft ? { quality: 'partial' as const, partialIndex: 0 } : {}),
  });
  return { mimeType: job.outputMimeType, data: imageBase64(bytes) };
}

/** The 200 answer's body for a job (a safety block and a refusal are 200s too). */
async function contentFor(job: GenerateJob, model: SimModel): Promise<Record<string, unknown>> {
  const common = { modelVersion: model.id, responseId: responseId() };
  const { triggers } = job;
  if (triggers.has('block-prompt')) {
    const promptTokens = textTokens(job.prompt);
    return {
      promptFeedback: { blockReason: 'PROHIBITED_CONTENT', safetyRatings: SAFETY_RATINGS },
      usageMetadata: { promptTokenCount: promptTokens, totalTokenCount: promptTokens },
      ...common,
    };
  }
  if (triggers.has('block-image')) {
    return {
      candidates: [
        {
          finishReason: 'IMAGE_SAFETY',
          index: 0,
          finishMessage:
            "Unable to show the generated image. The image was filtered out because it violated Google's Generative AI Prohibited Use policy.",
        },
      ],
      promptFeedback: { safetyRatings: SAFETY_RATINGS },
      usageMetadata: usageMetadata(job, model, 0),
      ...common,
    };
  }
  if (triggers.has('no-image')) {
    return { candidates: [{ finishReason: 'NO_IMAGE', index: 0 }], usageMetadata: usageMetadata(job, model, 0), ...common };
  }
  if (triggers.has('text-only') || !job.wantsImage) {
    const text = job.wantsImage ? "I can't create that image, but I can describe it instead." : `Here is a description of ${job.prompt}.`;
    return {
      candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP', index: 0, safetyRatings: SAFETY_RATINGS }],
      usageMetadata: usageMetadata(job, model, 0),
      ...common,
    };
  }
  const parts: Record<string, unknown>[] = [];
  let thoughtTokens = 0;
  if (triggers.has('thoughts')) {
    // 3-series models think first: interim parts marked `thought`, a draft image among them.
    parts.push(
      { text: `Planning the composition of ${job.prompt}.`, thought: true },
      { inlineData: await render(job, true), thought: true },
    );
    thoughtTokens = 300;
  }
  parts.push(
    { text: `Here is ${job.prompt}.` },
    { inlineData: await render(job), ...(thoughtTokens ? { thoughtSignature: randomBytes(24).toString('base64') } : {}) },
  );
  return {
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0, safetyRatings: SAFETY_RATINGS }],
    usageMetadata: usageMetadata(job, model, 1, thoughtTokens),
    ...common,
  };
}

/** An HTTP failure a trigger asks for, if any. */
function scriptedFailure(job: GenerateJob, surface: Surface, model: SimModel): ErrorAnswer | undefined {
  const { triggers } = job;
  if (triggers.has('ratelimit')) return resourceExhausted(surface, model.id, { retryDelaySeconds: triggers.value('ratelimit', 37) });
  if (triggers.has('ratelimit-daily')) return resourceExhausted(surface, model.id, { daily: true });
  if (triggers.has('server-error'))
    return rpcError(
      500,
      'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting',
    );
  if (triggers.has('overloaded')) return rpcError(503, 'The model is overloaded. Please try again later.');
  if (triggers.has('deadline')) return rpcError(504, 'Deadline expired before operation could complete.');
  return undefined;
}

async function generate(state: BetaState, surface: Surface, request: SimRequest, response: SimResponse): Promise<void> {
  const { model: modelId, action } = splitAction(request.params.modelAction);
  const resource =
    surface === 'cloud'
      ? `projects/${request.params.project}/locations/${request.params.location}/publishers/google/models/${modelId}`
      : `models/${modelId}`;
  const denied = checkAccess(state, surface, request, `//aiplatform.googleapis.com/${resource}`);
  if (denied) return answer(response, denied);
  if (action !== 'generateContent')
    return answer(response, rpcError(404, `Method not found: ${action || '(none)'}. This simulator serves generateContent.`));
  const model = findModel(modelId);
  if (!model) return answer(response, modelNotFound(surface, modelId, resource));
  if (request.bodyError === 'invalid_json') return answer(response, invalidArgument('Invalid JSON payload received. Unexpected token.'));
  const job = parseGenerateBody(request.body, model, surface);
  if ('status' in job) return answer(response, job);

  const failure = scriptedFailure(job, surface, model);
  if (failure) return answer(response, failure);
  const wait = (job.triggers.has('slow') ? job.triggers.value('slow', 2000) : 0) + state.generationDelayMs;
  if (wait > 0) {
    try {
      await delay(wait, undefined, { signal: request.signal });
    } catch {
      return; // The client gave up while the image "rendered".
    }
  }
  const body = await contentFor(job, model);
  if (job.triggers.has('malformed')) {
    const text = JSON.stringify(body);
    return response.send(200, text.slice(0, Math.floor(text.length / 2)), 'application/json; charset=UTF-8');
  }
  state.generated += 1;
  return response.json(200, body);
}

export function registerGenerateRoutes(state: BetaState): void {
  state.simulator.route('POST', '/v1beta/models/:modelAction', (request, response) => generate(state, 'key', request, response));
  state.simulator.route('POST', '/v1/projects/:project/locations/:location/publishers/google/models/:modelAction', (request, response) =>
    generate(state, 'cloud', request, response),
  );
}
