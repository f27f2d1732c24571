import { loadSharp } from '../../common/sharp.js';
import type { ErrorAnswer, SimRequest, SimResponse } from '../harness.js';
import { answer, authenticate, isRefusal } from './access.js';
import { spendCapReached } from './billing.js';
import { SIM_VIDEO_MODELS, TICKS_PER_USD } from './catalog.js';
import { alphaError, creditsExhausted } from './errors.js';
import type { AlphaState } from './state.js';
import { VideoJobs, type VideoJob, type VideoJobKind } from './video-jobs.js';
import { renderSimVideo, simVideoSize, sourceFrame } from './video-render.js';
import { parseVideoTriggers } from './video-triggers.js';
import { nearestRatio } from '../../common/media/index.js';

// The video jobs of the alpha vendor (contract §5): create on
// `videos/generations` (text, image or references to video), `videos/edits`
// and `videos/extensions` → `request_id`; `GET /videos/{id}` answers pending
// with rising progress (202), then done with a temporary link, or failed,
// expired, or done with `respect_moderation: false`, each reachable by a
// prompt trigger (video-triggers.ts). `alpha-video-1.5` needs a first frame
// (`image`): a prompt-only request sends a blank canvas. The MP4s are real
// H.264 clips (video-render.ts). An extension answers the new part only.

export const VIDEO_ROUTES = {
  generations: 'POST /v1/videos/generations',
  edits: 'POST /v1/videos/edits',
  extensions: 'POST /v1/videos/extensions',
  poll: 'GET /v1/videos/:id',
} as const;

const ASPECT_RATIOS = ['16:9', '4:3', '3:2', '1:1', '2:3', '3:4', '9:16'];
const RESOLUTIONS = ['480p', '720p', '1080p'];
const DURATION = { min: 1, max: 15, default: 6 };
/** Reference images of reference-to-video (the studio's spec: 2 to 14). */
const MAX_REFERENCES = 14;
/** Longest source of an edit (contract §5: about 8.7 s). */
const EDIT_MAX_SECONDS = 8.7;
const PROMPT_MAX_CHARS = 8000;
/** USD per second of video. */
const PRICE_PER_SECOND_USD = 0.05;

const DATA_URL = /^data:([a-z]+\/[a-z0-9.+-]+);base64,([A-Za-z0-9+/=\s]+)$/i;

type Fail = (status: number, message: string, code?: string) => ErrorAnswer;

/** The bytes behind a `{ url }` (a data URL or one of our media links) of the given kind. */
function mediaBytes(state: AlphaState, value: unknown, kind: 'image' | 'video', field: string, fail: Fail): Buffer | ErrorAnswer {
  const url = value && typeof value === 'object' ? (value as { url?: unknown }).url : undefined;
  if (typeof url !== 'string' || !url) return fail(400, `Invalid request content: "${field}" needs a "url".`);
  const data = DATA_URL.exec(url);
  const bytes = data ? Buffer.from(data[2], 'base64') : state.media.bytesOf(url);
  if (!bytes) return fail(400, `Invalid request content: could not fetch the ${kind} at ${url.slice(0, 80)}.`);
  const isVideo = bytes.subarray(4, 8).toString('latin1') === 'ftyp';
  const isImage =
    (bytes[0] === 0xff && bytes[1] === 0xd8) ||
    bytes.subarray(1, 4).toString('latin1') === 'PNG' ||
    bytes.subarray(8, 12).toString('latin1') === 'WEBP';
  if (kind === 'video' ? !isVideo : !isImage)
    return fail(400, `Invalid request content: "${field}" is not ${kind === 'video' ? 'an MP4 video' : 'a JPEG, PNG or WebP image'}.`);
  return bytes;
}

/** The video ratio nearest to an image's. */
async function imageRatio(image: Buffer): Promise<string> {
  const { width = 16, height = 9 } = await (await loadSharp())(image).metadata();
  return nearestRatio(width, height, ASPECT_RATIOS);
}

const isAnswer = (value: unknown): value is ErrorAnswer =>
  typeof value === 'object' && value !== null && 'status' in value && 'body' in value;

interface Plan {
  readonly kind: VideoJobKind;
  readonly model: string;
  readonly durationSeconds: number;
  readonly render: () => Promise<Buffer>;
}

/** Reads and checks one create call; answers what to render, or the vendor's refusal. */
async function planJob(
  state: AlphaState,
  kind: VideoJobKind,
  body: Record<string, unknown>,
  prompt: string,
  fail: Fail,
): Promise<Plan | ErrorAnswer> {
  const model = body.model ?? 'alpha-video';
  if (typeof model !== 'string' || !(SIM_VIDEO_MODELS as readonly string[]).includes(model))
    return fail(404, `The model ${String(model)} does not exist or your team does not have access to it.`, 'model_not_found');
  const duration = body.duration ?? DURATION.default;
  if (kind !== 'edit' && (!Number.isInteger(duration) || (duration as number) < DURATION.min || (duration as number) > DURATION.max)) {
    return fail(400, `Invalid request content: "duration" must be an integer from ${DURATION.min} to ${DURATION.max}.`);
  }
  if (kind === 'generation') {
    const { aspect_ratio: aspectRatio, resolution = '480p', image, reference_images: references } = body;
    if (aspectRatio !== undefined && !ASPECT_RATIOS.includes(String(aspectRatio)))
      return fail(400, `Invalid request content: "aspect_ratio" must be one of ${ASPECT_RATIOS.join(', ')}.`);
    if (!RESOLUTIONS.includes(String(resolution)))
      return fail(400, `Invalid request content: "resolution" must be one of ${RESOLUTIONS.join(', ')}.`);
    if (image !== undefined && references !== undefined)
      return fail(400, 'Invalid request content: send "image" or "reference_images", not both.');
    if (references !== undefined && (!Array.isArray(references) || references.length < 1 || references.length > MAX_REFERENCES))
      return fail(400, `Invalid request content: "reference_images" takes 1 to ${MAX_REFERENCES} images.`);
    if (model === 'alpha-video-1.5' && image === undefined && references === undefined)
      return fail(400, 'Invalid request content: alpha-video-1.5 requires "image".');
    if (resolution === '1080p' && (model !== 'alpha-video-1.5' || references !== undefined))
      return fail(
        400,
        'Invalid request content: 1080p is available on alpha-video-1.5 text- and image-to-video only (reference-to-video is capped at 720p).',
      );
    const first =
      image !== undefined
        ? mediaBytes(state, image, 'image', 'image', fail)
        : Array.isArray(references)
          ? mediaBytes(state, references[0], 'image', 'reference_images[0]', fail)
          : undefined;
    if (isAnswer(first)) return first;
    for (const [index, item] of (Array.isArray(references) ? references : []).entries()) {
      const checked = mediaBytes(state, item, 'image', `reference_images[${index}]`, fail);
      if (isAnswer(checked)) return checked;
    }
    // Without a ratio, image-to-video keeps the image's (contract §5), text-to-video is 16:9.
    const ratio = aspectRatio !== undefined ? String(aspectRatio) : first ? await imageRatio(first) : '16:9';
    const size = simVideoSize(String(resolution), ratio);
    return {
      kind,
      model,
      durationSeconds: duration as number,
      render: () => renderSimVideo({ prompt, ...size, durationSeconds: duration as number, ...(first ? { baseImage: first } : {}) }),
    };
  }
  for (const field of kind === 'edit' ? ['duration', 'aspect_ratio', 'resolution'] : ['aspect_ratio', 'resolution']) {
    if (body[field] !== undefined) return fail(400, `Argument not supported on ${kind === 'edit' ? 'edits' : 'extensions'}: ${field}.`);
  }
  const source = mediaBytes(state, body.video, 'video', 'video', fail);
  if (isAnswer(source)) return source;
  let facts: Awaited<ReturnType<typeof sourceFrame>>;
  try {
    facts = await sourceFrame(source, kind === 'edit' ? 'first' : 'last');
  } catch {
    return fail(400, 'Invalid request content: "video" could not be decoded.');
  }
  if (kind === 'edit' && facts.durationSeconds > EDIT_MAX_SECONDS)
    return fail(400, `Invalid request content: the source video is longer than ${EDIT_MAX_SECONDS} s.`);
  const seconds = kind === 'edit' ? Math.max(1, Math.round(facts.durationSeconds)) : (duration as number);
  return {
    kind,
    model,
    durationSeconds: seconds,
    render: () => renderSimVideo({ prompt, width: facts.width, height: facts.height, durationSeconds: seconds, baseImage: facts.frame }),
  };
}

async function handleCreate(
  state: AlphaState,
  jobs: VideoJobs,
  kind: VideoJobKind,
  request: SimRequest,
  response: SimResponse,
): Promise<void> {
  const body =
    request.body && typeof request.body === 'object' && !Array.isArray(request.body)
      ? (request.body as Record<string, unknown>)
      : undefined;
  const { triggers, cleaned } = parseVideoTriggers(typeof body?.prompt === 'string' ? body.prompt : '');
  const fail: Fail = (status, message, code) => alphaError('grpc', status, message, code);
  const caller = authenticate(state, request, 'grpc');
  if (isRefusal(caller)) return answer(response, caller);
  if (!body) return answer(response, fail(400, 'Invalid request content: the body must be a JSON object.'));
  if (typeof body.prompt !== 'string' || !body.prompt.trim())
    return answer(response, fail(400, 'Invalid request content: "prompt" is required.'));
  if (body.prompt.length > PROMPT_MAX_CHARS)
    return answer(response, fail(400, `Invalid request content: "prompt" is longer than ${PROMPT_MAX_CHARS} characters.`));
  if (triggers.has('video-create-error')) return answer(response, fail(500, 'Internal error while creating the video job.'));
  if (triggers.has('video-ratelimit'))
    return answer(
      response,
      alphaError('grpc', 429, 'Too many requests: rate limit exceeded.', 'rate_limit_exceeded', {
        'retry-after': String(triggers.value('video-ratelimit', 7)),
      }),
    );
  if (spendCapReached(state.billing)) return answer(response, creditsExhausted('grpc', state.tokens.account.teamId));
  const plan = await planJob(state, kind, body, cleaned || 'video', fail);
  if (isAnswer(plan)) return answer(response, plan);
  const job = jobs.create({
    kind,
    model: plan.model,
    durationSeconds: plan.durationSeconds,
    triggers,
    render: plan.render(),
    costTicks: Math.round(plan.durationSeconds * PRICE_PER_SECOND_USD * TICKS_PER_USD),
  });
  return response.json(200, { request_id: job.id });
}

/** The poll's answer for a job whose time is up. */
function finishedAnswer(state: AlphaState, job: VideoJob): { status: number; body: unknown } {
  const { triggers } = job;
  if (triggers.has('video-fail') || job.renderError)
    return {
      status: 200,
      body: {
        status: 'failed',
        error: {
          code: 'generation_failed',
          message: job.renderError ? `The video could not be rendered: ${job.renderError}` : 'The video could not be generated.',
        },
      },
    };
  if (triggers.has('video-expire')) return { status: 200, body: { status: 'expired', model: job.model } };
  if (job.media === undefined && job.rendered) {
    job.media = state.media.put(job.rendered, 'video/mp4', { extension: 'mp4' });
    state.generated += 1;
    state.billing.usedCents += Math.round((job.costTicks / TICKS_PER_USD) * 100);
  }
  const moderated = triggers.has('video-moderated');
  const video = {
    ...(moderated ? {} : { url: state.media.url(job.media as string) }),
    duration: job.durationSeconds,
    respect_moderation: !moderated,
  };
  return {
    status: 200,
    body: {
      ...(triggers.has('video-no-status') ? {} : { status: 'done' }),
      video,
      model: job.model,
      usage: { cost_in_usd_ticks: job.costTicks },
      progress: 100,
    },
  };
}

export function registerVideoRoutes(state: AlphaState, options: { readonly videoMs: number }): VideoJobs {
  const { simulator } = state;
  const jobs = new VideoJobs(options.videoMs);
  simulator.route('POST', '/v1/videos/generations', (request, response) => handleCreate(state, jobs, 'generation', request, response));
  simulator.route('POST', '/v1/videos/edits', (request, response) => handleCreate(state, jobs, 'edit', request, response));
  simulator.route('POST', '/v1/videos/extensions', (request, response) => handleCreate(state, jobs, 'extension', request, response));
  simulator.route('GET', '/v1/videos/:id', async (request, response) => {
    const caller = authenticate(state, request, 'grpc');
    if (isRefusal(caller)) return answer(response, caller);
    const job = jobs.get(request.params.id);
    if (!job) return answer(response, alphaError('grpc', 404, `No video job ${request.params.id}.`, 'not_found'));
    if (!jobs.finished(job)) {
      if (job.triggers.has('video-quiet')) return response.send(202, '', 'application/json');
      return response.json(202, { status: 'pending', progress: jobs.progress(job) });
    }
    const finished = finishedAnswer(state, job);
    return response.json(finished.status, finished.body);
  });
  return jobs;
}
