import { ServiceError } from '../errors.js';
import type { PromptBuilderBackend } from '../api/index.js';
import type { StudioContext } from '../context.js';
import { alphaClient } from '../lanes/alpha/call.js';
import { converse, searchWeb } from '../lanes/alpha/planner.js';
import { headers as oauthHeaders } from '../lanes/oauth/index.js';
import { usableSession } from '../lanes/oauth/refresh.js';
import { isRejectedToken, responsesLaneError } from '../lanes/responses/errors.js';
import { callResponses } from '../lanes/responses/stream.js';
import type { LaneJob } from '../lanes/types.js';
import { upstreamModel } from './config.js';

// One text answer from a builder backend, over the protocols the lanes speak:
// the Responses stream of `oauth` and `api` (callResponses, no tools), the
// alpha planner call of `alpha` and `alpha-api` (converse). Credentials, the
// oauth refresh, budgets, masking and error mapping are the lanes' own.

export interface Conversation {
  readonly instructions: string;
  readonly messages: readonly { readonly role: 'user' | 'assistant'; readonly text: string }[];
  /** Let the model search the web first: `api` with its web_search tool, the alpha backends with their search step; `oauth` has none. */
  readonly webSearch?: boolean;
}

export interface TextAnswer {
  readonly text: string;
  readonly usage?: { readonly inputTokens: number; readonly outputTokens: number };
}

/** The budget of one text call (SVC_PROMPT_BUILDER_TIMEOUT_MS). */
export function textBudgetMs(ctx: StudioContext): number {
  const override = Number(ctx.env.SVC_PROMPT_BUILDER_TIMEOUT_MS);
  return Number.isFinite(override) && override > 0 ? override : 60_000;
}

/** A text call has no phases or partials to report: only its cancel and deadline matter. */
const textJob = (signal: AbortSignal, deadline: number): LaneJob => ({ signal, deadline, phase: () => {}, partial: () => {}, sending: async () => {} });

function responsesBody(model: string, conversation: Conversation, store: boolean | undefined): Blob {
  const body: Record<string, unknown> = {
    model,
    instructions: conversation.instructions,
    input: conversation.messages.map((message) => ({ role: message.role, content: [{ type: message.role === 'user' ? 'input_text' : 'output_text', text: message.text }] })),
    stream: true,
  };
  if (store !== undefined) body.store = store;
  if (conversation.webSearch) body.tools = [{ type: 'web_search' }];
  return new Blob([JSON.stringify(body)], { type: 'application/json' });
}

async function responsesText(ctx: StudioContext, backend: 'oauth' | 'api', model: string, conversation: Conversation, signal: AbortSignal): Promise<TextAnswer> {
  const timeoutMs = textBudgetMs(ctx);
  const job = textJob(signal, Date.now() + timeoutMs);
  const send = async (url: string, headers: Record<string, string>, credential: string): Promise<TextAnswer> => {
    try {
      const outcome = await callResponses({ lane: backend, url, headers, credential, body: responsesBody(upstreamModel(backend, model), backend === 'oauth' ? { ...conversation, webSearch: false } : conversation, backend === 'oauth' ? false : undefined), timeoutMs, format: 'png', job });
      return { text: outcome.text ?? '', ...(outcome.usage ? { usage: { inputTokens: outcome.usage.inputTokens ?? 0, outputTokens: outcome.usage.outputTokens ?? 0 } } : {}) };
    } catch (error) {
      throw responsesLaneError(backend, error);
    }
  };
  if (backend === 'api') {
    const key = ctx.key('omni');
    if (!key) throw new ServiceError('API_KEY_REQUIRED', 'The api backend needs OMNI_API_KEY.', { details: { backend, env: 'OMNI_API_KEY' } });
    return send(`${ctx.upstreamUrl('api')}/responses`, { authorization: `Bearer ${key.value}` }, key.value);
  }
  const url = `${ctx.upstreamUrl('oauth')}/codex/responses`;
  const session = await usableSession(ctx, { signal });
  try {
    return await send(url, oauthHeaders(session), session.accessToken);
  } catch (error) {
    // A 401 is not billed: refresh (or pick up another process's refresh) and try once more, as the lane does.
    if (!isRejectedToken(error)) throw error;
    const fresh = await usableSession(ctx, { rejected: session.accessToken, signal });
    return send(url, oauthHeaders(fresh), fresh.accessToken);
  }
}

/** Sends the conversation to the backend with the model; errors in the lanes' codes. */
export async function askBackend(ctx: StudioContext, backend: PromptBuilderBackend, model: string, conversation: Conversation, signal: AbortSignal): Promise<TextAnswer> {
  if (backend === 'oauth' || backend === 'api') return responsesText(ctx, backend, model, conversation, signal);
  const client = await alphaClient(ctx, backend, signal);
  let messages = conversation.messages;
  const last = messages.at(-1);
  if (conversation.webSearch && last) {
    // The lane's own search step first; its findings go with the newest message.
    const found = await searchWeb(client.step('search'), model, last.text);
    const sources = found.citations.map((citation) => `- ${citation.title ? `${citation.title}: ` : ''}${citation.url}`).join('\n');
    messages = [...messages.slice(0, -1), { role: last.role, text: `${last.text}\n\nWeb findings: ${found.summary || '(nothing specific)'}${sources ? `\n${sources}` : ''}` }];
  }
  const answer = await converse(client.step('planner'), model, conversation.instructions, messages);
  return { text: answer.text, usage: answer.usage };
}
