import { randomUUID } from 'node:crypto';
import { ServiceError } from '../../errors.js';
import type { LaneEnv } from '../env.js';
import { isRejectedToken } from '../responses/errors.js';
import { defineLane } from '../define-lane.js';
import { responsesImage } from '../responses/image-call.js';
import { responsesOptions, type ResponsesOptions } from '../responses/options.js';
import { OAUTH_MODELS, RESPONSES_CAPABILITIES } from '../responses/models.js';
import { responsesText, textModelEntries } from '../responses/text.js';
import type { TextModel } from '../text-model.js';
import { modelSetting, reasoningSetting, settingOf } from '../settings.js';
import type { LaneImageRequest, LaneImageResult, LaneJob, LaneModule, LaneStatus } from '../types.js';
import { readChatSessionSync, type ChatSession } from './auth-file.js';
import { accountIdClaim } from './jwt.js';
import { chatQuota } from './quota.js';
import { usableSession } from './refresh.js';
import { startChatLogin } from './login.js';
import { oauthStatus } from './status.js';

// The `oauth` lane: the chat vendor's subscription backend with the user's chat
// session. A lang planner model plans the prompt, the hosted tool renders with
// lang-image-2. The backend insists on stream:true, store:false and instructions.

/** Our client name in the `originator` header (the contract does not say it is checked). */
export const OAUTH_ORIGINATOR = 'svc_studio';

const MODELS = { list: OAUTH_MODELS, default: 'lang-6-luna' };

/** The backend's headers for a call with this session (the prompt builder's text calls use them too). */
export function headers(session: ChatSession): Record<string, string> {
  const out: Record<string, string> = {
    authorization: `Bearer ${session.accessToken}`,
    originator: OAUTH_ORIGINATOR,
    session_id: randomUUID(),
    'openai-beta': 'responses=experimental',
  };
  const accountId = session.accountId ?? accountIdClaim(session.idToken, session.accessToken);
  if (accountId) out['chatgpt-account-id'] = accountId;
  return out;
}

async function run(ctx: LaneEnv, request: LaneImageRequest<ResponsesOptions>, job: LaneJob): Promise<LaneImageResult> {
  const reasoning = request.reasoning ?? settingOf(ctx, oauthLane, 'reasoning');
  const call = (session: ChatSession) =>
    responsesImage(ctx, oauthLane, { ...request, reasoning }, job, {
      url: `${ctx.upstreamUrl('oauth')}/codex/responses`,
      headers: headers(session),
      credential: session.accessToken,
      webSearch: false,
      store: false,
    });
  const session = await usableSession(ctx, { signal: job.signal });
  try {
    return await call(session);
  } catch (error) {
    // A 401 is not billed: refresh (or pick up another process's refresh) and try once more.
    if (!isRejectedToken(error)) throw error;
    return call(await usableSession(ctx, { rejected: session.accessToken, signal: job.signal }));
  }
}

/**
 * Its text capability (the prompt builder, Agent Mode's planner): the same backend with no tool
 * (it offers no web search), `store: false`, an api id run as its oauth equivalent, and the
 * image call's 401 rule: refresh and try once more.
 */
const text: TextModel = {
  specificationVersion: 'v1',
  models: textModelEntries(OAUTH_MODELS),
  defaultModel: MODELS.default,
  webSearch: false,
  async generate(ctx, call, job) {
    const model = OAUTH_MODELS.find((spec) => spec.id === call.model)?.runsAs ?? call.model;
    const send = (session: ChatSession) =>
      responsesText('oauth', call, model, job, {
        url: `${ctx.upstreamUrl('oauth')}/codex/responses`,
        headers: headers(session),
        credential: session.accessToken,
        store: false,
        webSearch: false,
      });
    const session = await usableSession(ctx, { signal: job.signal });
    try {
      return await send(session);
    } catch (error) {
      if (!isRejectedToken(error)) throw error;
      return send(await usableSession(ctx, { rejected: session.accessToken, signal: job.signal }));
    }
  },
};

/** A session file that exists but cannot be used is `needs_credential`, not `ready` (same rule as preflight). */
async function probe(ctx: LaneEnv): Promise<LaneStatus | undefined> {
  try {
    readChatSessionSync(ctx.sessionFile('oauth'));
    return undefined;
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    return { state: 'needs_credential', reason: error.message };
  }
}

export const oauthLane: LaneModule = defineLane({
  id: 'oauth',
  label: 'Chat OAuth',
  description: 'The chat vendor backend with the local chat OAuth session; a lang planner plans, lang-image-2 renders.',
  credential: { kind: 'oauth-session', session: 'chat', fileEnv: 'SVC_OAUTH_AUTH_FILE', remedy: 'sign in with the chat CLI' },
  // config.json's `oauthAuthFile` may point at the chat CLI's own file.
  sessionFile: { home: 'oauth/auth.json', setting: 'oauthAuthFile' },
  codes: {
    missingCredential: 'OAUTH_UNAVAILABLE',
    answers: [
      'AUTH_CHATGPT_EXPIRED',
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
  maxInputImages: 16,
  maskEdits: true,
  timeoutMs: 300_000,
  endpoints: {
    base: { env: 'SVC_OAUTH_BASE_URL', default: 'https://chatgpt.com/backend-api' },
    issuer: { env: 'SVC_OAUTH_ISSUER_URL', default: 'https://auth.openai.com' },
  },
  settings: { model: modelSetting(MODELS.default), reasoning: reasoningSetting('low') },
  quota: chatQuota,
  // The chat vendor's own device login; the session file is replaced only once approved.
  signIn: startChatLogin,
  // GET /api/oauth/status: the session the lane uses, never a token.
  routes: async (app, { ctx }) => {
    app.get('/api/oauth/status', async () => oauthStatus(ctx));
  },
  capabilities: RESPONSES_CAPABILITIES,
  adapter: {
    specificationVersion: 'v1',
    probe,
    // Refuses the job (401 OAUTH_UNAVAILABLE) before it is accepted, even when async, if the session cannot be used.
    preflight: (ctx) => void readChatSessionSync(ctx.sessionFile('oauth')),
    generate: run,
    edit: run,
  },
  text,
});
