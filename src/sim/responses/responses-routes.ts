import { setTimeout as delay } from 'node:timers/promises';
import type { SimRequest, SimResponse } from '../harness.js';
import { answer, checkApiKey, checkLaneAccess, surfaceHeaders } from './access.js';
import { apiError, invalidJson, usageLimitReached, type Lane } from './errors.js';
import { produceResponse, type EventSink } from './producer.js';
import { parseResponsesRequest, type ResponsesJob } from './request.js';
import { scriptedFailure } from './scripted.js';
import type { ResponsesState } from './state.js';

// `POST {API_BASE}/responses` and `POST {BACKEND_BASE}/codex/responses`, plus
// retrieve/cancel of stored responses on the api lane.

export const API_RESPONSES_ROUTE = 'POST /v1/responses';
export const OAUTH_RESPONSES_ROUTE = 'POST /backend-api/codex/responses';

/** Waits out `[sim:slow=ms]`; false when the client left meanwhile. */
async function waitSlow(job: ResponsesJob, request: SimRequest): Promise<boolean> {
  if (!job.triggers.has('slow')) return true;
  try {
    await delay(job.triggers.value('slow', 2000), undefined, { signal: request.signal });
    return true;
  } catch {
    return false;
  }
}

function streamSink(response: SimResponse, request: SimRequest): EventSink {
  let sequence = 0;
  return {
    signal: request.signal,
    emit(event, options = {}) {
      const { type, ...rest } = event as { type: string };
      const payload = options.unsequenced ? event : { type, sequence_number: sequence++, ...rest };
      if (!options.malformed) return response.event(type, payload);
      const json = JSON.stringify(payload);
      return response.event(type, json.slice(0, Math.floor(json.length / 2)));
    },
    cut: () => response.cut('cut-by-simulator'),
  };
}

function jsonSink(response: SimResponse, request: SimRequest): EventSink {
  return {
    signal: request.signal,
    emit: () => Promise.resolve(!request.signal.aborted && !response.closed),
    cut: () => response.cut('cut-by-simulator'),
  };
}

/** Keeps a response for retrieve; image results come back null there (contract §1). */
function store(state: ResponsesState, response: Record<string, unknown>, images: Map<string, Buffer>): void {
  const output = (response.output as Record<string, unknown>[]).map((item) =>
    item.type === 'image_generation_call' ? { ...item, result: null } : item,
  );
  state.stored.set(String(response.id), { response: { ...response, output }, images });
}

async function handleResponses(lane: Lane, state: ResponsesState, request: SimRequest, response: SimResponse): Promise<void> {
  surfaceHeaders(state, lane, response);
  const denied = checkLaneAccess(state, lane, request);
  if (denied) return answer(response, denied);
  if (request.bodyError) return answer(response, invalidJson(lane));
  const job = await parseResponsesRequest(lane, request.body, state);
  if ('status' in job) return answer(response, job);

  const scripted = scriptedFailure(job.triggers, {
    lane,
    model: job.model,
    moderation: job.image?.moderation ?? 'auto',
    inStream: job.stream,
    planType: state.tokens.account.planType,
  });
  if (scripted) return answer(response, scripted);
  if (lane === 'oauth' && state.usage.exhausted) {
    return answer(
      response,
      usageLimitReached(state.tokens.account.planType, state.usage.primaryResetsInSeconds, Math.floor(Date.now() / 1000)),
    );
  }
  if (!(await waitSlow(job, request))) return;

  const settings = {
    generationDelayMs: state.generationDelayMs,
    rateLimitsEvent: lane === 'oauth' && state.rateLimitsEvent ? state.usage.rateLimitsEvent() : undefined,
  };
  if (job.stream) {
    if (!response.startStream(200, {}, { quirks: job.triggers.has('wire-quirks') })) return;
    const result = await produceResponse(job, streamSink(response, request), settings);
    if (result.finished && result.response.status === 'completed') {
      if (lane === 'oauth') state.usage.consume();
      if (job.store) store(state, result.response, result.images);
    }
    // No sentinel is defined for this API, but clients must tolerate a stray one (contract §5).
    if (result.finished && job.triggers.has('done-sentinel')) await response.data('[DONE]');
    response.endStream();
    return;
  }

  const result = await produceResponse(job, jsonSink(response, request), { ...settings, rateLimitsEvent: undefined });
  if (!result.finished) return;
  if (job.store) store(state, result.response, result.images);
  if (job.triggers.has('malformed')) {
    const json = JSON.stringify(result.response);
    return response.send(200, json.slice(0, Math.floor(json.length / 2)), 'application/json');
  }
  return response.json(200, result.response);
}

export function registerResponsesRoutes(state: ResponsesState): void {
  const { simulator } = state;
  simulator.route('POST', '/v1/responses', (request, response) => handleResponses('api', state, request, response));
  simulator.route('POST', '/backend-api/codex/responses', (request, response) => handleResponses('oauth', state, request, response));

  simulator.route('GET', '/v1/responses/:id', async (request, response) => {
    surfaceHeaders(state, 'api', response);
    const denied = checkApiKey(state, request);
    if (denied) return answer(response, denied);
    const stored = state.stored.get(request.params.id);
    if (!stored) return answer(response, apiError(404, `Response with id '${request.params.id}' not found.`, { param: 'response_id' }));
    return response.json(200, stored.response);
  });

  simulator.route('POST', '/v1/responses/:id/cancel', async (request, response) => {
    surfaceHeaders(state, 'api', response);
    const denied = checkApiKey(state, request);
    if (denied) return answer(response, denied);
    if (!state.stored.get(request.params.id))
      return answer(response, apiError(404, `Response with id '${request.params.id}' not found.`, { param: 'response_id' }));
    return answer(response, apiError(400, 'Only responses created with background=true can be cancelled.', { param: 'response_id' }));
  });
}
