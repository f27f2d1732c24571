import { randomUUID } from 'node:crypto';
import { ServiceError } from '../../../common/errors.js';
import type { StudioContext } from '../../context.js';
import { effectiveDefaults } from '../../defaults.js';
import { responsesImage } from '../responses/image-call.js';
import type { LaneAdapter, LaneImageRequest, LaneImageResult, LaneJob, LaneStatus } from '../types.js';
import { readChatSessionSync, type ChatSession } from './auth-file.js';
import { accountIdClaim } from './jwt.js';
import { usableSession } from './refresh.js';

// The `oauth` lane: the chat vendor's subscription backend with the user's chat
// session. A lang planner model plans the prompt, the hosted tool renders with
// lang-image-2. The backend insists on stream:true, store:false and instructions.

/** Our client name in the `originator` header (the contract does not say it is checked). */
export const OAUTH_ORIGINATOR = 'svc_studio';

function backendUrl(ctx: StudioContext): string {
  const url = ctx.upstreamUrl('oauth');
  if (!url) throw new ServiceError('NETWORK_FAILED', 'No upstream URL is configured for the oauth lane.');
  return `${url.replace(/\/+$/, '')}/codex/responses`;
}

function headers(session: ChatSession): Record<string, string> {
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

async function run(ctx: StudioContext, request: LaneImageRequest, job: LaneJob): Promise<LaneImageResult> {
  const reasoning = request.reasoning ?? effectiveDefaults(ctx).oauth.reasoning.value;
  const call = (session: ChatSession) =>
    responsesImage(ctx, 'oauth', { ...request, reasoning }, job, { url: backendUrl(ctx), headers: headers(session), webSearch: false, store: false });
  const session = await usableSession(ctx);
  try {
    return await call(session);
  } catch (error) {
    // A 401 is not billed: refresh (or pick up another process's refresh) and try once more.
    if (!(error instanceof ServiceError) || error.code !== 'AUTH_CHATGPT_EXPIRED' || error.details?.upstreamStatus !== 401) throw error;
    return call(await usableSession(ctx, { rejected: session.accessToken }));
  }
}

/** A session file that exists but cannot be used is `needs_credential`, not `ready` (same rule as preflight). */
async function probe(ctx: StudioContext): Promise<LaneStatus | undefined> {
  try {
    readChatSessionSync(ctx.oauthAuthFile());
    return undefined;
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    return { state: 'needs_credential', reason: error.message };
  }
}

/** Refuses the job (401 OAUTH_UNAVAILABLE) before it is accepted, even when async, if the session cannot be used. */
function preflight(ctx: StudioContext): void {
  readChatSessionSync(ctx.oauthAuthFile());
}

export const oauthLane: LaneAdapter = {
  id: 'oauth',
  probe,
  defaultModel: (ctx) => effectiveDefaults(ctx).oauth.model.value,
  preflight,
  generate: run,
  edit: run,
};
