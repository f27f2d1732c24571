import type { LaneEnv } from '../env.js';
import { callUpstream, readJson } from '../../upstream/index.js';
import { laneTimeoutMs } from '../budget.js';
import type { LaneImageRequest, LaneImageResult, LaneJob, LaneModule } from '../types.js';
import { cloudAccessToken, cloudTokenUrl } from './access-token.js';
import { contentAnswer, contentBody, imageOf, type ContentAnswer } from './content.js';
import {
  BETA_CLOUD_SELECTION,
  BETA_COST_TABLE,
  BETA_DEFAULT_SELECTION,
  BETA_IMAGE_SIZE_ENUM,
  BETA_RENDERED_TIER,
  betaPixelSize,
  type BetaModelId,
} from './controls.js';
import { betaCredential, type BetaCredential } from './credentials.js';
import { betaCallError, parseBetaError } from './errors.js';
import type { BetaOptions } from './options.js';

// One beta-api image: `POST …:generateContent` on the key surface
// (`x-goog-api-key`) or, in the cloud mode, on the cloud surface with a bearer
// token from the service account. One budget (120 s, SVC_BETA_API_TIMEOUT_MS)
// covers the token exchange and the call.

/** The cloud surface's location: the preview image models are served from `global` (contract §7). */
export const CLOUD_LOCATION = 'global';

/** What runs: the selection, the tier it renders at, the enum sent (none in the cloud mode). */
function selectionOf(credential: BetaCredential, model: BetaModelId, options: BetaOptions) {
  if (credential.mode === 'cloud') {
    const ignored = (['aspectRatio', 'resolution'] as const).filter((name) => options[name] !== undefined);
    return { ...BETA_CLOUD_SELECTION, requested: undefined, imageConfig: undefined, ignored };
  }
  const aspectRatio = options.aspectRatio ?? BETA_DEFAULT_SELECTION.aspectRatio;
  const requested = options.resolution ?? BETA_DEFAULT_SELECTION.resolution;
  const resolution = BETA_RENDERED_TIER[model][requested];
  return { aspectRatio, resolution, requested, imageConfig: { aspectRatio, imageSize: BETA_IMAGE_SIZE_ENUM[resolution] }, ignored: [] };
}

/** The URL and headers of the call, after the token exchange in the cloud mode. */
async function target(
  ctx: LaneEnv,
  credential: BetaCredential,
  upstreamModel: string,
  deadline: () => number,
  job: LaneJob,
): Promise<{ url: string; headers: Record<string, string>; secret: string }> {
  const action = `${encodeURIComponent(upstreamModel)}:generateContent`;
  if (credential.mode === 'apikey') {
    return {
      url: `${ctx.upstreamUrl('beta-api')}/v1beta/models/${action}`,
      headers: { 'x-goog-api-key': credential.key },
      secret: credential.key,
    };
  }
  const { account } = credential;
  const token = await cloudAccessToken(ctx, account, {
    tokenUrl: cloudTokenUrl(ctx, account),
    timeoutMs: deadline,
    signal: job.signal,
  });
  const path = `/v1/projects/${encodeURIComponent(account.project_id)}/locations/${CLOUD_LOCATION}/publishers/google/models/${action}`;
  return { url: `${ctx.upstreamUrl('beta-api', 'cloud')}${path}`, headers: { authorization: `Bearer ${token}` }, secret: token };
}

export async function betaImage(
  ctx: LaneEnv,
  lane: LaneModule,
  request: LaneImageRequest<BetaOptions>,
  job: LaneJob,
): Promise<LaneImageResult> {
  const credential = betaCredential(ctx);
  const model = request.model.id as BetaModelId;
  const selection = selectionOf(credential, model, request.options);
  const budgetMs = laneTimeoutMs(ctx, lane);
  const endsAt = Date.now() + budgetMs;
  const remaining = () => Math.max(1, endsAt - Date.now());

  job.phase('planning');
  const { url, headers, secret } = await target(ctx, credential, request.model.upstreamId, remaining, job);
  const images = request.image ? [request.image, ...request.references] : request.references;
  job.phase('rendering');
  let answer: ContentAnswer;
  try {
    answer = await callUpstream(
      {
        lane: 'beta-api',
        url,
        headers: { ...headers, 'content-type': 'application/json' },
        body: contentBody({ prompt: request.prompt, images, imageConfig: selection.imageConfig }),
        credentials: [secret],
        // What the token exchange left of the budget; the error names the whole budget.
        timeoutMs: remaining(),
        signal: job.signal,
        parseError: parseBetaError,
      },
      (response) => readJson('beta-api', response, contentAnswer),
    );
  } catch (error) {
    throw betaCallError(error, request.model.upstreamId, budgetMs);
  }
  const image = imageOf(answer);
  const usage = answer.usageMetadata;
  return {
    images: [image],
    ...(usage
      ? { usage: { inputTokens: usage.promptTokenCount, outputTokens: usage.candidatesTokenCount, totalTokens: usage.totalTokenCount } }
      : {}),
    settings: {
      mode: credential.mode,
      upstreamModel: request.model.upstreamId,
      aspectRatio: selection.aspectRatio,
      resolution: selection.resolution,
      size: betaPixelSize(selection.aspectRatio, selection.resolution),
      imageSize: selection.imageConfig?.imageSize ?? null,
      ...(selection.requested && selection.requested !== selection.resolution ? { requestedResolution: selection.requested } : {}),
      ...(selection.ignored.length ? { ignoredOptions: selection.ignored } : {}),
      estimatedCostUsd: BETA_COST_TABLE[model].perImageUsd[selection.resolution],
      references: request.references.length,
      action: request.image ? 'edit' : 'generate',
    },
  };
}
