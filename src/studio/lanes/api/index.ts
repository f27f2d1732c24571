import { z } from 'zod';
import { ServiceError } from '../../errors.js';
import type { LaneEnv } from '../env.js';
import { defineLane } from '../define-lane.js';
import { responsesImage } from '../responses/image-call.js';
import { responsesOptions, type ResponsesOptions } from '../responses/options.js';
import { bearer, keyedGet } from '../key-check.js';
import { API_MODELS, RESPONSES_CAPABILITIES } from '../responses/models.js';
import { responsesText, textModelEntries } from '../responses/text.js';
import type { TextModel } from '../text-model.js';
import { booleanSetting, modelSetting, reasoningSetting, settingOf, sizeSetting } from '../settings.js';
import type { LaneImageRequest, LaneImageResult, LaneJob, LaneModule } from '../types.js';

// The `api` lane: the vendor's Responses API with the hosted image tool, billed
// to OMNI_API_KEY (environment first, then config.json).

function apiKey(ctx: LaneEnv): string {
  const key = ctx.key('omni');
  if (!key)
    throw new ServiceError(
      'API_KEY_REQUIRED',
      'The api lane needs OMNI_API_KEY: set it in the environment or under "keys".omni in config.json.',
      { details: { lane: 'api', env: 'OMNI_API_KEY' } },
    );
  return key.value;
}

const MODELS = { list: API_MODELS, default: 'lang-5.6-luna' };

async function run(ctx: LaneEnv, request: LaneImageRequest<ResponsesOptions>, job: LaneJob): Promise<LaneImageResult> {
  const key = apiKey(ctx);
  return responsesImage(ctx, apiLane, { ...request, reasoning: request.reasoning ?? settingOf(ctx, apiLane, 'reasoning') }, job, {
    url: `${ctx.upstreamUrl('api')}/responses`,
    headers: { authorization: `Bearer ${key}`, 'x-client-request-id': request.requestId.slice(0, 512) },
    credential: key,
    webSearch: settingOf(ctx, apiLane, 'allowWebSearch'),
    size: settingOf(ctx, apiLane, 'size'),
  });
}

/** Its text capability (the prompt builder, Agent Mode's planner): the Responses API with no image tool, its web_search tool when asked. */
const text: TextModel = {
  specificationVersion: 'v1',
  models: textModelEntries(API_MODELS),
  defaultModel: MODELS.default,
  webSearch: true,
  generate: (ctx, call, job) => {
    const key = apiKey(ctx);
    return responsesText('api', call, call.model, job, {
      url: `${ctx.upstreamUrl('api')}/responses`,
      headers: { authorization: `Bearer ${key}` },
      credential: key,
      webSearch: true,
    });
  },
};

export const apiLane: LaneModule = defineLane({
  id: 'api',
  label: 'API',
  description: 'The vendor responses API with the hosted image tool, billed to OMNI_API_KEY.',
  credential: { kind: 'key', namespaces: ['omni'] },
  // Responses contract: the API's model list (`{ object: "list", data: [...] }`) with the bearer key.
  keyChecks: {
    omni: {
      form: { pattern: /^sk-[A-Za-z0-9_-]{20,}$/, description: 'starts with sk-' },
      verify: keyedGet('api', '/models', bearer, z.object({ data: z.array(z.unknown()) })),
    },
  },
  codes: {
    missingCredential: 'API_KEY_REQUIRED',
    answers: [
      'AUTH_API_KEY_INVALID',
      'SAFETY_REFUSAL',
      'MODERATION_REFUSED',
      'RATE_LIMITED',
      'IMAGE_MODEL_UNSUPPORTED',
      'UPSTREAM_FAILED',
      'UPSTREAM_TIMEOUT',
      'NETWORK_FAILED',
    ],
  },
  models: MODELS,
  controls: ['quality', 'size', 'format', 'moderation', 'reasoning'],
  options: responsesOptions,
  // The upstream edits endpoint's limit (the spec leaves it open).
  maxInputImages: 16,
  maskEdits: true,
  timeoutMs: 300_000,
  endpoints: { base: { env: 'SVC_API_BASE_URL', default: 'https://api.openai.com/v1' } },
  // Spec: defaults of the api lane when no explicit option is given.
  settings: {
    model: modelSetting(MODELS.default, 'SVC_API_IMAGE_MODEL_DEFAULT'),
    reasoning: reasoningSetting('low', 'SVC_API_REASONING_EFFORT'),
    size: sizeSetting('1024x1024', 'SVC_API_IMAGE_SIZE'),
    allowWebSearch: booleanSetting(true, 'SVC_API_ALLOW_WEB_SEARCH'),
  },
  capabilities: RESPONSES_CAPABILITIES,
  adapter: {
    specificationVersion: 'v1',
    preflight: (ctx) => void apiKey(ctx),
    generate: run,
    edit: run,
  },
  text,
});
