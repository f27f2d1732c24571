import { maskSecret, type ErrorAnswer } from '../harness.js';
import {
  insufficientQuota,
  invalidApiKey,
  moderationBlocked,
  overloaded,
  rateLimited,
  safetyRefusal,
  serverError,
  tokenExpired,
  tokenInvalid,
  usageLimitReached,
  usageNotIncluded,
  type Lane,
} from './errors.js';
import type { Triggers } from './triggers.js';

// The HTTP-level answers prompt triggers script. In-stream variants
// (`*-stream`) only play inside a Responses SSE stream; everywhere else they
// answer like their HTTP form.

export interface ScriptContext {
  readonly lane: Lane;
  readonly model: string;
  readonly moderation: 'auto' | 'low';
  /** True for a Responses SSE stream, where `*-stream` triggers fail inside the stream instead. */
  readonly inStream: boolean;
  readonly planType: string;
}

const DEFAULT_RETRY_MS = 1200;
const DEFAULT_RESET_SECONDS = 7200;

export function scriptedFailure(triggers: Triggers, context: ScriptContext): ErrorAnswer | undefined {
  const { lane, inStream } = context;
  const nowSeconds = Math.floor(Date.now() / 1000);
  if (triggers.has('unauthorized')) return lane === 'oauth' ? tokenInvalid() : invalidApiKey(maskSecret('sim-unauthorized-key'));
  if (triggers.has('token-expired')) return lane === 'oauth' ? tokenExpired() : invalidApiKey(maskSecret('sim-expired-key-0'));
  if (triggers.has('ratelimit') || (triggers.has('ratelimit-stream') && !inStream)) {
    return rateLimited(context.model, triggers.value('ratelimit', triggers.value('ratelimit-stream', DEFAULT_RETRY_MS)));
  }
  if (triggers.has('quota'))
    return lane === 'oauth'
      ? usageLimitReached(context.planType, triggers.value('quota', DEFAULT_RESET_SECONDS), nowSeconds)
      : insufficientQuota();
  if (triggers.has('usage-not-included')) return lane === 'oauth' ? usageNotIncluded(context.planType) : insufficientQuota();
  if (triggers.has('moderation') || (triggers.has('moderation-stream') && !inStream)) return moderationBlocked();
  if (triggers.has('moderation-unless-low') && context.moderation !== 'low' && !inStream) return moderationBlocked();
  if (triggers.has('safety') || (triggers.has('safety-stream') && !inStream)) return safetyRefusal(lane);
  if (triggers.has('server-error')) return serverError(lane);
  if (triggers.has('overloaded')) return overloaded(lane);
  return undefined;
}
