import { parsePromptTriggers, type PromptTriggers } from '../prompt-triggers.js';

// Prompt triggers of the alpha simulator: `[sim:name]` or `[sim:name=number]`
// anywhere in the prompt script one vendor behaviour. The search and planner
// calls read the user's text; the planner copies every trigger into the final
// prompt it writes, so the image call sees them too. They are removed before
// a prompt is drawn or echoed.

export const ALPHA_TRIGGER_NAMES = [
  // The web search call (Responses with the web_search tool).
  /** Wait before answering the search; `=ms` (default 2000). */
  'slow-search',
  /** 500 on the search call. */
  'search-error',
  /** A search answer without url_citation annotations. */
  'no-citations',
  // The planner call (Responses without tools).
  'slow-planner',
  'planner-error',
  /** The planner answers no text. */
  'planner-empty',
  // The image call.
  'slow-image',
  /** 401 (a refused credential). */
  'unauthorized',
  /** 403: the model is not available to the team. */
  'forbidden',
  /** 404: the model does not exist. */
  'model-not-found',
  /** 429 rate limit with Retry-After; `=s` (default 7). */
  'ratelimit',
  /** 429 "used all available credits or reached its monthly spending limit" (not retryable). */
  'credits',
  /** 500, and 503 `model_service_unavailable`. */
  'server-error',
  'unavailable',
  /** A 200 whose JSON is cut in half; a 200 with an empty `data`. */
  'malformed',
  'no-image',
  /** Errors in the chat-completions shape (`{error:{message,type,code}}`) instead of the gRPC-status one. */
  'object-errors',
  // The media link of a `url` answer.
  /** Already expired when fetched (403). */
  'url-expired',
  /** Answers 302 to another host. */
  'url-redirect',
  /** Plain http on another host. */
  'url-elsewhere',
  /** https on a private address (10.0.0.7). */
  'url-private',
  /** https on a name that resolves to loopback (localhost). */
  'url-localhost',
  /** Declares a body of 512 MiB. */
  'url-huge',
  /** HTML behind a `.jpg` name. */
  'url-not-image',
  /** PNG bytes behind a `.jpg` name (the type comes from the bytes). */
  'url-png',
] as const;

export type AlphaTriggerName = (typeof ALPHA_TRIGGER_NAMES)[number];
export type AlphaTriggers = PromptTriggers<AlphaTriggerName>;

export const parseAlphaTriggers = (text: string): { triggers: AlphaTriggers; cleaned: string } =>
  parsePromptTriggers(text, ALPHA_TRIGGER_NAMES);

/** Every `[sim:…]` token of `text`, as written (the planner carries them into its prompt). */
export const triggerTokens = (text: string): string[] => text.match(/\[sim:[a-z0-9-]+(?:=\d+)?\]/g) ?? [];
