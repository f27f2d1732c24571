import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { ErrorAnswer, SimRequest, SimResponse } from '../harness.js';
import { answer, authenticate, isRefusal } from './access.js';
import { SIM_PLANNER_MODELS } from './catalog.js';
import { alphaError, type ErrorShape } from './errors.js';
import { conversationAnswer } from '../responses/conversation.js';
import { newId, type AlphaState } from './state.js';
import { parseAlphaTriggers, triggerTokens } from './triggers.js';

// `POST /v1/responses` (contract §6): the Responses-style planner with
// server-side tools. With the `web_search` tool (and a tool_choice other than
// `none`) it searches: a `web_search_call` item, then a message whose text
// carries `url_citation` annotations. Without tools it plans: a message whose
// text is the final image prompt, written from the first text part of the
// last user message (every `[sim:…]` trigger of the request carried along, so
// the image call sees them). JSON, or the Responses SSE family with `stream`.

const TOOL_TYPES = ['web_search', 'x_search', 'code_interpreter', 'view_image', 'view_x_video', 'file_search', 'mcp', 'function'];
const TOOL_CHOICES = ['auto', 'none', 'required'];

interface Message {
  readonly role: string;
  readonly texts: readonly string[];
}

/** The input as messages with their text parts (a string input is one user message). */
function messagesOf(input: unknown): Message[] | undefined {
  if (typeof input === 'string') return [{ role: 'user', texts: [input] }];
  if (!Array.isArray(input)) return undefined;
  const messages: Message[] = [];
  for (const item of input) {
    if (!item || typeof item !== 'object') return undefined;
    const { role, content } = item as { role?: unknown; content?: unknown };
    if (typeof role !== 'string') return undefined;
    if (typeof content === 'string') messages.push({ role, texts: [content] });
    else if (Array.isArray(content)) {
      const texts = content.flatMap((part) =>
        part &&
        typeof part === 'object' &&
        (part as { type?: unknown }).type === 'input_text' &&
        typeof (part as { text?: unknown }).text === 'string'
          ? [(part as { text: string }).text]
          : [],
      );
      messages.push({ role, texts });
    } else return undefined;
  }
  return messages;
}

interface PlannerCall {
  readonly model: string;
  readonly search: boolean;
  readonly stream: boolean;
  /** The text the answer is about: the first text part of the last user message. */
  readonly subject: string;
  /** Every text part (triggers are read from all of them). */
  readonly allText: string;
  readonly inputChars: number;
  readonly instructions?: string;
  /** Every text part of the last user message. */
  readonly lastUserText: string;
}

function parseCall(request: SimRequest, shape: ErrorShape): PlannerCall | ErrorAnswer {
  const body = request.body;
  if (!body || typeof body !== 'object' || Array.isArray(body))
    return alphaError(shape, 400, 'Invalid request content: the body must be a JSON object.');
  const record = body as Record<string, unknown>;
  const { model, input, tools = [], tool_choice: toolChoice = 'auto', stream = false, instructions } = record;
  if (typeof model !== 'string' || !model) return alphaError(shape, 400, 'Invalid request content: "model" is required.');
  if (!(SIM_PLANNER_MODELS as readonly string[]).includes(model))
    return alphaError(shape, 404, `The model ${model} does not exist or your team does not have access to it.`, 'model_not_found');
  const messages = messagesOf(input);
  if (!messages || messages.length === 0)
    return alphaError(shape, 400, 'Invalid request content: "input" must be a string or a list of messages.');
  if (instructions !== undefined && typeof instructions !== 'string')
    return alphaError(shape, 400, 'Invalid request content: "instructions" must be a string.');
  if (
    !Array.isArray(tools) ||
    tools.some((tool) => !tool || typeof tool !== 'object' || !TOOL_TYPES.includes(String((tool as { type?: unknown }).type)))
  ) {
    return alphaError(shape, 400, `Invalid request content: each tool needs a type among ${TOOL_TYPES.join(', ')}.`);
  }
  const choice = typeof toolChoice === 'string' ? toolChoice : String((toolChoice as { type?: unknown } | null)?.type ?? '');
  if (typeof toolChoice === 'string' ? !TOOL_CHOICES.includes(toolChoice) : !TOOL_TYPES.includes(choice))
    return alphaError(shape, 400, 'Invalid request content: "tool_choice" is not valid.');
  if ((choice === 'required' || TOOL_TYPES.includes(choice)) && tools.length === 0)
    return alphaError(shape, 400, 'Invalid request content: tool_choice asks for a tool but "tools" is empty.');
  if (typeof stream !== 'boolean') return alphaError(shape, 400, 'Invalid request content: "stream" must be a boolean.');
  const search = choice !== 'none' && (tools as { type: string }[]).some((tool) => tool.type === 'web_search');
  const user = [...messages].reverse().find((message) => message.role === 'user');
  const allText = messages.flatMap((message) => message.texts).join('\n');
  return {
    model,
    search,
    stream,
    subject: user?.texts[0] ?? '',
    allText,
    inputChars: allText.length + (typeof instructions === 'string' ? instructions.length : 0),
    ...(typeof instructions === 'string' ? { instructions } : {}),
    lastUserText: user?.texts.join('\n') ?? '',
  };
}

const slug = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 48) || 'image';
const tokens = (chars: number): number => Math.max(1, Math.ceil(chars / 4));

/** The sources a search "finds" for a subject (fake but stable per subject). */
function sourcesOf(subject: string): { url: string; title: string }[] {
  const topic = slug(subject);
  return [
    { url: `https://www.example.org/wiki/${topic}`, title: `${subject} — encyclopedia entry` },
    { url: `https://news.example.com/articles/${topic}`, title: `Recent coverage of ${subject}` },
    { url: `https://photos.example.net/search?q=${topic}`, title: `Photo references for ${subject}` },
  ];
}

type OutputItem = Record<string, unknown>;

function searchOutput(subject: string, withCitations: boolean): { items: OutputItem[]; sources: number } {
  const sources = withCitations ? sourcesOf(subject) : [];
  let text = `Findings for "${subject}":`;
  const annotations = sources.map((source, index) => {
    const line = ` [${index + 1}] ${source.title}.`;
    const start = text.length + 1;
    text += line;
    return { type: 'url_citation', url: source.url, title: source.title, start_index: start, end_index: text.length };
  });
  if (!sources.length) text += ' nothing specific was found.';
  const call = {
    type: 'web_search_call',
    id: `${newId('ws')}_0`,
    name: 'web_search',
    arguments: JSON.stringify({ query: subject, num_results: 5 }),
    call_id: '',
    status: 'completed',
  };
  return { items: [call, message(text, annotations)], sources: sources.length };
}

function message(text: string, annotations: unknown[] = []): OutputItem {
  return {
    type: 'message',
    id: newId('msg'),
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text, annotations }],
  };
}

/** The planner's final prompt: English, from the subject, with the request's triggers carried along. */
function plannedPrompt(subject: string, allText: string): string {
  const sourceCount = (allText.match(/https?:\/\//g) ?? []).length;
  const base = `A detailed, well-composed image of ${subject.trim() || 'the requested scene'}${sourceCount ? `, true to ${sourceCount} web source${sourceCount > 1 ? 's' : ''}` : ''}.`;
  return [base, ...triggerTokens(allText)].join(' ');
}

async function streamAnswer(response: SimResponse, body: Record<string, unknown>): Promise<void> {
  let sequence = 0;
  const send = (type: string, fields: Record<string, unknown>) => response.event(type, { type, sequence_number: sequence++, ...fields });
  if (!response.startStream()) return;
  await send('response.created', { response: { ...body, status: 'in_progress', output: [], usage: null } });
  for (const [index, item] of (body.output as OutputItem[]).entries()) {
    await send('response.output_item.added', {
      output_index: index,
      item: item.type === 'message' ? { ...item, status: 'in_progress', content: [] } : item,
    });
    if (item.type === 'message') {
      const part = (item.content as { text: string }[])[0];
      await send('response.output_text.delta', { item_id: item.id, output_index: index, content_index: 0, delta: part.text });
      await send('response.output_text.done', { item_id: item.id, output_index: index, content_index: 0, text: part.text });
    }
    await send('response.output_item.done', { output_index: index, item });
  }
  await send('response.completed', { response: body });
  response.endStream();
}

async function handleResponses(state: AlphaState, request: SimRequest, response: SimResponse): Promise<void> {
  const text = JSON.stringify((request.body as { input?: unknown } | undefined)?.input ?? '');
  const { triggers } = parseAlphaTriggers(text);
  const shape: ErrorShape = triggers.has('object-errors') ? 'object' : 'grpc';
  const caller = authenticate(state, request, shape);
  if (isRefusal(caller)) return answer(response, caller);
  const call = parseCall(request, shape);
  if ('status' in call) return answer(response, call);
  const step = call.search ? 'search' : 'planner';
  if (triggers.has(`${step}-error`))
    return answer(response, alphaError(shape, 500, `Internal error in the ${step === 'search' ? 'web search' : 'planner'}.`));
  const wait = state.latencyMs / 4 + (triggers.has(`slow-${step}`) ? triggers.value(`slow-${step}`, 2000) : 0);
  if (wait > 0) {
    try {
      await delay(wait, undefined, { signal: request.signal });
    } catch {
      return;
    }
  }
  const subject = parseAlphaTriggers(call.subject).cleaned;
  const searched = call.search ? searchOutput(subject, !triggers.has('no-citations')) : undefined;
  // The studio's own conversations (prompt builder, Agent Mode's planner) get the answer they ask for.
  const conversation = conversationAnswer(call.instructions, parseAlphaTriggers(call.lastUserText).cleaned, call.model);
  const output = searched
    ? searched.items
    : [message(triggers.has('planner-empty') ? '' : (conversation ?? plannedPrompt(subject, call.allText)))];
  const outputChars = output.reduce((sum, item) => sum + JSON.stringify(item).length, 0);
  const body = {
    id: randomUUID(),
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status: 'completed',
    model: call.model,
    output,
    usage: {
      input_tokens: tokens(call.inputChars),
      output_tokens: tokens(outputChars),
      total_tokens: tokens(call.inputChars) + tokens(outputChars),
      num_sources_used: searched?.sources ?? 0,
      num_server_side_tools_used: searched ? 1 : 0,
    },
  };
  if (call.stream) return streamAnswer(response, body);
  return response.json(200, body);
}

export function registerResponsesRoutes(state: AlphaState): void {
  state.simulator.route('POST', '/v1/responses', (request, response) => handleResponses(state, request, response));
}
