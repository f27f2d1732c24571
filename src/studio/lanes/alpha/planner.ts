import { z } from 'zod';
import { lazy } from '../../../common/lazy.js';
import { ServiceError } from '../../errors.js';
import { readJson } from '../../upstream/index.js';
import type { AlphaCall } from './call.js';

// The first two steps (contract §6): a Responses-style call with the
// server-side `web_search` tool (mandatory: `tool_choice: required`), then a
// planner call without tools that turns the request and the findings into one
// English image prompt. Both JSON (no stream: the answers are short), both
// `store: false`.

export const SEARCH_INSTRUCTIONS =
  'You research image requests. Search the web for facts and visual references that help illustrate the request ' +
  '(what things look like, names, places, recent events). Answer with a short summary of what you found.';

export const PLANNER_INSTRUCTIONS =
  'You write the final prompt for an image model. The first part is the request, the second what a web search found. ' +
  'Answer with the image prompt only: one paragraph in English (translate the request if needed), concrete and visual, ' +
  'true to the findings, with no preamble, no quotes and no sources.';

/** Citations kept on an asset. */
const MAX_CITATIONS = 20;

const annotation = lazy(() => z.looseObject({ type: z.string(), url: z.string().optional(), title: z.string().optional() }));
const contentPart = lazy(() =>
  z.looseObject({ type: z.string(), text: z.string().optional(), annotations: z.array(annotation).optional() }),
);
const outputItem = lazy(() => z.looseObject({ type: z.string(), content: z.array(contentPart).optional() }));
const responseBody = lazy(() =>
  z.looseObject({
    id: z.string().optional(),
    output: z.array(outputItem),
    usage: z
      .looseObject({
        input_tokens: z.number().optional(),
        output_tokens: z.number().optional(),
        total_tokens: z.number().optional(),
        num_sources_used: z.number().optional(),
      })
      .nullish(),
  }),
);
type ResponseBody = z.infer<typeof responseBody>;

export interface Citation {
  readonly url: string;
  readonly title?: string;
}

export interface TokenUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

/** The assistant's text (every output_text part) and its url_citation annotations, deduplicated. */
function readAnswer(body: ResponseBody): { text: string; citations: Citation[] } {
  const parts = body.output
    .filter((item) => item.type === 'message')
    .flatMap((item) => item.content ?? [])
    .filter((part) => part.type === 'output_text');
  const citations = new Map<string, Citation>();
  for (const found of parts.flatMap((part) => part.annotations ?? [])) {
    if (
      found.type !== 'url_citation' ||
      !found.url ||
      !/^https?:\/\//i.test(found.url) ||
      citations.has(found.url) ||
      citations.size >= MAX_CITATIONS
    )
      continue;
    citations.set(found.url, { url: found.url.slice(0, 2000), ...(found.title ? { title: found.title.slice(0, 200) } : {}) });
  }
  return {
    text: parts
      .map((part) => part.text ?? '')
      .join('')
      .trim(),
    citations: [...citations.values()],
  };
}

const usageOf = (body: ResponseBody): TokenUsage => ({
  inputTokens: body.usage?.input_tokens ?? 0,
  outputTokens: body.usage?.output_tokens ?? 0,
});

async function respond(call: AlphaCall, body: Record<string, unknown>): Promise<ResponseBody> {
  return call.send('/responses', JSON.stringify(body), (response) => readJson(call.lane, response, responseBody, 8 * 1024 * 1024));
}

export interface SearchResult {
  readonly summary: string;
  readonly citations: readonly Citation[];
  readonly usage: TokenUsage;
}

export async function searchWeb(call: AlphaCall, planner: string, prompt: string): Promise<SearchResult> {
  const body = await respond(call, {
    model: planner,
    instructions: SEARCH_INSTRUCTIONS,
    input: [{ role: 'user', content: [{ type: 'input_text', text: prompt }] }],
    tools: [{ type: 'web_search', enable_image_understanding: false }],
    tool_choice: 'required',
    store: false,
    stream: false,
  });
  const { text, citations } = readAnswer(body);
  return { summary: text, citations, usage: usageOf(body) };
}

export interface PlannedPrompt {
  readonly prompt: string;
  readonly usage: TokenUsage;
}

/** The final prompt; UPSTREAM_FAILED when the planner answered none. */
export async function planPrompt(
  call: AlphaCall,
  planner: string,
  prompt: string,
  search: SearchResult,
  inputImages: number,
): Promise<PlannedPrompt> {
  const sources = search.citations.map((citation) => `- ${citation.title ? `${citation.title}: ` : ''}${citation.url}`).join('\n');
  const findings = [
    `Web findings:\n${search.summary || '(nothing specific)'}`,
    ...(sources ? [`Sources:\n${sources}`] : []),
    ...(inputImages ? [`The image model also receives ${inputImages} input image${inputImages > 1 ? 's' : ''} to edit or draw from.`] : []),
  ].join('\n\n');
  const body = await respond(call, {
    model: planner,
    instructions: PLANNER_INSTRUCTIONS,
    input: [
      {
        role: 'user',
        content: [
          { type: 'input_text', text: prompt },
          { type: 'input_text', text: findings },
        ],
      },
    ],
    store: false,
    stream: false,
  });
  const { text } = readAnswer(body);
  if (!text)
    throw new ServiceError('UPSTREAM_FAILED', `The ${call.lane} planner answered without an image prompt.`, {
      details: { lane: call.lane, step: 'planner', retryable: true },
    });
  return { prompt: text, usage: usageOf(body) };
}

/** A conversation turned into one answer by the planner model, no tools (the prompt builder, Agent Mode's planner). */
export async function converse(
  call: AlphaCall,
  planner: string,
  instructions: string,
  messages: readonly { role: 'user' | 'assistant'; text: string }[],
): Promise<{ text: string; usage: TokenUsage }> {
  const body = await respond(call, {
    model: planner,
    instructions,
    input: messages.map((message) => ({
      role: message.role,
      content: [{ type: message.role === 'user' ? 'input_text' : 'output_text', text: message.text }],
    })),
    store: false,
    stream: false,
  });
  return { text: readAnswer(body).text, usage: usageOf(body) };
}
