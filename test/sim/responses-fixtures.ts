import type { OauthAuthFile, ResponsesSimulator } from '../../src/sim/responses-simulator.js';

// Request bodies and headers shared by the Responses simulator tests.

export function apiHeaders(sim: ResponsesSimulator): Record<string, string> {
  return { authorization: `Bearer ${sim.apiKey}` };
}

export function oauthHeaders(session: OauthAuthFile): Record<string, string> {
  return {
    authorization: `Bearer ${session.tokens.access_token}`,
    'chatgpt-account-id': session.tokens.account_id,
    originator: 'codex_cli_rs',
    accept: 'text/event-stream',
  };
}

export interface ImageBodyOptions {
  prompt?: string;
  model?: string;
  stream?: boolean;
  tool?: Record<string, unknown>;
  toolChoice?: unknown;
  reasoning?: Record<string, unknown>;
  extra?: Record<string, unknown>;
  images?: string[];
}

/** An api-lane Responses body asking for one image (small by default to keep tests quick). */
export function imageBody(options: ImageBodyOptions = {}): Record<string, unknown> {
  const content: Record<string, unknown>[] = [
    { type: 'input_text', text: options.prompt ?? 'A red kite over a green hill, flat illustration' },
  ];
  for (const url of options.images ?? []) content.push({ type: 'input_image', image_url: url });
  return {
    model: options.model ?? 'lang-5.6-luna',
    stream: options.stream ?? true,
    input: [{ role: 'user', content }],
    tools: [{ type: 'image_generation', size: '256x256', quality: 'low', output_format: 'png', ...options.tool }],
    tool_choice: options.toolChoice === undefined ? { type: 'image_generation' } : options.toolChoice,
    ...(options.reasoning ? { reasoning: options.reasoning } : {}),
    ...options.extra,
  };
}

/** The same body as the oauth lane sends it: instructions, store:false, stream:true. */
export function oauthImageBody(options: ImageBodyOptions = {}): Record<string, unknown> {
  return imageBody({
    model: 'lang-6-luna',
    ...options,
    extra: { instructions: 'You are a helpful image assistant.', store: false, ...options.extra },
  });
}
