import { ServiceError } from '../../../common/errors.js';
import type { StudioContext } from '../../context.js';
import { effectiveDefaults } from '../../defaults.js';
import { responsesImage } from '../responses/image-call.js';
import type { LaneAdapter, LaneImageRequest, LaneImageResult, LaneJob } from '../types.js';

// The `api` lane: the vendor's Responses API with the hosted image tool, billed
// to OMNI_API_KEY (environment first, then config.json).

function apiKey(ctx: StudioContext): string {
  const key = ctx.key('omni');
  if (!key) throw new ServiceError('API_KEY_REQUIRED', 'The api lane needs OMNI_API_KEY: set it in the environment or under "keys".omni in config.json.', { details: { lane: 'api', env: 'OMNI_API_KEY' } });
  return key.value;
}

function baseUrl(ctx: StudioContext): string {
  const url = ctx.upstreamUrl('api');
  if (!url) throw new ServiceError('NETWORK_FAILED', 'No upstream URL is configured for the api lane.');
  return url.replace(/\/+$/, '');
}

async function run(ctx: StudioContext, request: LaneImageRequest, job: LaneJob): Promise<LaneImageResult> {
  const key = apiKey(ctx);
  const defaults = effectiveDefaults(ctx).api;
  return responsesImage(ctx, 'api', { ...request, reasoning: request.reasoning ?? defaults.reasoning.value }, job, {
    url: `${baseUrl(ctx)}/responses`,
    headers: { authorization: `Bearer ${key}`, 'x-client-request-id': request.requestId.slice(0, 512) },
    webSearch: defaults.allowWebSearch.value,
    size: defaults.size.value,
  });
}

export const apiLane: LaneAdapter = {
  id: 'api',
  defaultModel: (ctx) => effectiveDefaults(ctx).api.model.value,
  preflight: (ctx) => void apiKey(ctx),
  generate: run,
  edit: run,
};
