import { loadSharp } from '../../common/sharp.js';
import type { ErrorAnswer } from '../harness.js';
import { REASONING_EFFORTS, invalid, isProblem, parseImageSettings, type ImageSettings, type InvalidParameter } from './catalog.js';
import { apiError, detailError, invalidAnswer, modelNotFound, type Lane } from './errors.js';
import type { ResponsesState } from './state.js';
import { parseTriggers, type Triggers } from './triggers.js';

// Turns a `POST …/responses` body into a checked job, or the vendor's error
// answer for the first problem found (contract §3).

export interface ResponsesJob {
  readonly lane: Lane;
  readonly model: string;
  readonly stream: boolean;
  readonly store: boolean;
  /** The user's prompt with triggers removed. */
  readonly prompt: string;
  readonly triggers: Triggers;
  /** Every input text (instructions included), for usage. */
  readonly inputText: string;
  /** Decoded input images (data URLs and referenced earlier image calls), first = edit base. */
  readonly inputImages: readonly Buffer[];
  /** Set when the hosted image tool will run. */
  readonly image: ImageSettings | undefined;
  /** The model speaks after the image only when it chose the tool itself (`tool_choice: auto`). */
  readonly commentAfterImage: boolean;
  readonly reasoning: { readonly effort: string; readonly summary: string | null } | undefined;
  readonly includeEncryptedReasoning: boolean;
  readonly textFormat: { readonly type: string; readonly name?: string; readonly schema?: unknown };
  readonly obfuscation: boolean;
  /** Fields echoed in the response object. */
  readonly echo: Record<string, unknown>;
}

const KNOWN_TOOL_TYPES = new Set([
  'function',
  'image_generation',
  'web_search',
  'web_search_preview',
  'file_search',
  'code_interpreter',
  'computer_use_preview',
  'mcp',
  'local_shell',
  'custom',
]);
const TOOL_CHOICE_STRINGS = new Set(['auto', 'none', 'required']);
const DATA_URL = /^data:([\w.+-]+\/[\w.+-]+);base64,(.*)$/s;

type Problem = InvalidParameter | ErrorAnswer;
const isErrorAnswer = (value: unknown): value is ErrorAnswer =>
  typeof value === 'object' && value !== null && 'status' in value && 'body' in value;

function missing(param: string): InvalidParameter {
  return invalid(param, `Missing required parameter: '${param}'.`, 'missing_required_parameter');
}

const asRecord = (value: unknown): Record<string, unknown> | undefined =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

/** Decodes an image data URL; undefined for remote URLs (the simulator has no network). */
async function decodeImageUrl(url: string, param: string): Promise<Buffer | undefined | InvalidParameter> {
  if (/^https?:\/\//i.test(url)) return undefined;
  const match = DATA_URL.exec(url);
  if (!match) return invalid(param, `Invalid '${param}': expected a URL or a base64 data URL.`, 'invalid_image_url');
  if (!match[1].startsWith('image/')) return invalid(param, `Invalid image format '${match[1]}'.`, 'invalid_image_format');
  const data = Buffer.from(match[2], 'base64');
  if (!data.length) return invalid(param, 'The image is empty.', 'empty_image_file');
  try {
    const sharp = await loadSharp();
    await sharp(data).metadata();
  } catch {
    return invalid(param, 'The image data could not be decoded.', 'invalid_image');
  }
  return data;
}

interface InputScan {
  userTexts: string[];
  lastUserText: string;
  allTexts: string[];
  images: Buffer[];
}

async function scanInput(input: unknown, lane: Lane, state: ResponsesState, store: boolean): Promise<InputScan | Problem> {
  const scan: InputScan = { userTexts: [], lastUserText: '', allTexts: [], images: [] };
  if (typeof input === 'string') {
    scan.userTexts.push(input);
    scan.lastUserText = input;
    scan.allTexts.push(input);
    return scan;
  }
  if (!Array.isArray(input))
    return input === undefined
      ? missing('input')
      : invalid('input', "Invalid type for 'input': expected a string or an array.", 'invalid_type');
  for (let index = 0; index < input.length; index += 1) {
    const item = asRecord(input[index]);
    if (!item) return invalid(`input[${index}]`, `Invalid type for 'input[${index}]': expected an object.`, 'invalid_type');
    if (item.type === 'image_generation_call') {
      const id = String(item.id ?? '');
      const image = store ? state.stored.findImage(id) : undefined;
      if (!image) {
        const message = `Item with id '${id}' not found.${store ? '' : ' Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input.'}`;
        return lane === 'oauth' ? detailError(message) : invalid(`input[${index}]`, message, 'invalid_value');
      }
      scan.images.push(image);
      continue;
    }
    if (item.type !== undefined && item.type !== 'message') continue; // reasoning, tool outputs: nothing to simulate
    const role = item.role;
    if (typeof role !== 'string' || !['user', 'assistant', 'system', 'developer'].includes(role)) {
      return invalid(
        `input[${index}].role`,
        `Invalid value: '${String(role)}'. Supported values are: 'user', 'assistant', 'system', and 'developer'.`,
      );
    }
    const parts =
      typeof item.content === 'string' ? [{ type: role === 'assistant' ? 'output_text' : 'input_text', text: item.content }] : item.content;
    if (!Array.isArray(parts)) return missing(`input[${index}].content`);
    const texts: string[] = [];
    for (let partIndex = 0; partIndex < parts.length; partIndex += 1) {
      const part = asRecord(parts[partIndex]);
      const param = `input[${index}].content[${partIndex}]`;
      if (!part) return invalid(param, `Invalid type for '${param}': expected an object.`, 'invalid_type');
      if (part.type === 'input_text' || part.type === 'output_text') {
        if (typeof part.text !== 'string') return missing(`${param}.text`);
        texts.push(part.text);
      } else if (part.type === 'input_image') {
        const hasUrl = typeof part.image_url === 'string';
        const hasFile = typeof part.file_id === 'string';
        if (hasUrl === hasFile)
          return invalid(param, `Invalid '${param}': exactly one of 'image_url' or 'file_id' is required.`, 'invalid_value');
        if (part.detail !== undefined && !['low', 'high', 'auto', 'original'].includes(String(part.detail))) {
          return invalid(
            `${param}.detail`,
            `Invalid value: '${String(part.detail)}'. Supported values are: 'low', 'high', 'auto', and 'original'.`,
          );
        }
        if (hasUrl) {
          const image = await decodeImageUrl(part.image_url as string, `${param}.image_url`);
          if (isProblem(image)) return image;
          if (image && role === 'user') scan.images.push(image);
        }
      } else if (part.type !== 'input_file') {
        return invalid(
          `${param}.type`,
          `Invalid value: '${String(part.type)}'. Supported values are: 'input_text', 'input_image', 'output_text', and 'input_file'.`,
        );
      }
    }
    scan.allTexts.push(...texts);
    if (role === 'user') {
      scan.userTexts.push(...texts);
      scan.lastUserText = texts.join('\n');
    }
  }
  return scan;
}

interface ToolScan {
  image: ImageSettings | undefined;
  imageToolIndex: number;
}

async function scanTools(tools: unknown): Promise<ToolScan | Problem> {
  const scan: ToolScan = { image: undefined, imageToolIndex: -1 };
  if (tools === undefined || tools === null) return scan;
  if (!Array.isArray(tools)) return invalid('tools', "Invalid type for 'tools': expected an array.", 'invalid_type');
  for (let index = 0; index < tools.length; index += 1) {
    const tool = asRecord(tools[index]);
    const prefix = `tools[${index}].`;
    if (!tool) return invalid(`tools[${index}]`, `Invalid type for 'tools[${index}]': expected an object.`, 'invalid_type');
    if (typeof tool.type !== 'string') return missing(`${prefix}type`);
    if (!KNOWN_TOOL_TYPES.has(tool.type))
      return invalid(
        `${prefix}type`,
        `Invalid value: '${tool.type}'. Supported values are: ${[...KNOWN_TOOL_TYPES].map((type) => `'${type}'`).join(', ')}.`,
      );
    if (tool.type === 'function' && typeof tool.name !== 'string') return missing(`${prefix}name`);
    if (tool.type !== 'image_generation') continue;
    const settings = parseImageSettings(tool, prefix);
    if (isProblem(settings)) return settings;
    const mask = asRecord(tool.input_image_mask);
    if (tool.input_image_mask !== undefined) {
      if (!mask || (typeof mask.image_url !== 'string' && typeof mask.file_id !== 'string')) {
        return invalid(`${prefix}input_image_mask`, "input_image_mask needs 'image_url' or 'file_id'.");
      }
      if (typeof mask.image_url === 'string') {
        const decoded = await decodeImageUrl(mask.image_url, `${prefix}input_image_mask.image_url`);
        if (isProblem(decoded)) return decoded;
      }
    }
    scan.image = settings;
    scan.imageToolIndex = index;
  }
  return scan;
}

/** Whether the hosted image tool runs under this `tool_choice`. */
function toolChoiceAllowsImage(choice: unknown): boolean | InvalidParameter {
  if (choice === undefined || choice === null) return true;
  if (typeof choice === 'string') {
    if (!TOOL_CHOICE_STRINGS.has(choice))
      return invalid('tool_choice', `Invalid value: '${choice}'. Supported values are: 'none', 'auto', and 'required'.`);
    return choice !== 'none';
  }
  const record = asRecord(choice);
  if (!record || typeof record.type !== 'string') return missing('tool_choice.type');
  if (record.type === 'allowed_tools') {
    const allowed = Array.isArray(record.tools) ? record.tools : [];
    return allowed.some((tool) => asRecord(tool)?.type === 'image_generation');
  }
  return record.type === 'image_generation';
}

export async function parseResponsesRequest(lane: Lane, body: unknown, state: ResponsesState): Promise<ResponsesJob | ErrorAnswer> {
  const fail = (problem: Problem): ErrorAnswer => (isErrorAnswer(problem) ? problem : invalidAnswer(lane, problem));
  const request = asRecord(body);
  if (!request) return fail(invalid('', 'The request body must be a JSON object.', 'invalid_type'));

  // The subscription backend's own body rules come first (contract §3, [obs]).
  if (lane === 'oauth') {
    if (request.stream !== true) return detailError('Stream must be set to true');
    if (request.store !== false) return detailError('Store must be set to false');
    if (typeof request.instructions !== 'string' || !request.instructions) return detailError('Instructions are required');
  }

  const model = request.model;
  if (typeof model !== 'string' || !model) return fail(missing('model'));
  const models = lane === 'oauth' ? state.oauthChatModels : state.apiChatModels;
  if (!models.includes(model)) return modelNotFound(lane, model);
  if (request.background === true)
    return fail(invalid('background', 'Background mode is not simulated; send background:false.', 'unsupported_parameter'));

  const stream = request.stream === true;
  const store = lane === 'oauth' ? false : request.store !== false;
  if (request.previous_response_id !== undefined && request.previous_response_id !== null) {
    const id = String(request.previous_response_id);
    if (!store || !state.stored.get(id)) {
      const message = `Previous response with id '${id}' not found.`;
      return lane === 'oauth'
        ? detailError(message)
        : apiError(400, message, { param: 'previous_response_id', code: 'previous_response_not_found' });
    }
  }

  const tools = await scanTools(request.tools);
  if (isProblem(tools) || isErrorAnswer(tools)) return fail(tools);
  const allowsImage = toolChoiceAllowsImage(request.tool_choice);
  if (isProblem(allowsImage)) return fail(allowsImage);
  const forcedImage = asRecord(request.tool_choice)?.type === 'image_generation';
  if (forcedImage && !tools.image) return fail(invalid('tool_choice', "Tool choice 'image_generation' not found in 'tools' parameter."));

  const input = await scanInput(request.input, lane, state, store);
  if (isProblem(input) || isErrorAnswer(input)) return fail(input);
  const { triggers, cleaned } = parseTriggers(input.lastUserText || input.userTexts.join('\n'));
  if (tools.image?.action === 'edit' && input.images.length === 0) {
    return fail(invalid(`tools[${tools.imageToolIndex}].action`, "action 'edit' requires at least one input image."));
  }

  const reasoningRecord = asRecord(request.reasoning);
  let reasoning: ResponsesJob['reasoning'];
  if (reasoningRecord) {
    const effort = reasoningRecord.effort ?? 'medium';
    if (!(REASONING_EFFORTS as readonly unknown[]).includes(effort)) {
      return fail(
        invalid(
          'reasoning.effort',
          `Invalid value: '${String(effort)}'. Supported values are: ${REASONING_EFFORTS.map((value) => `'${value}'`).join(', ')}.`,
        ),
      );
    }
    const summary = reasoningRecord.summary ?? null;
    if (summary !== null && !['auto', 'concise', 'detailed'].includes(String(summary))) {
      return fail(
        invalid('reasoning.summary', `Invalid value: '${String(summary)}'. Supported values are: 'auto', 'concise', and 'detailed'.`),
      );
    }
    reasoning = effort === 'none' ? undefined : { effort: String(effort), summary: summary === null ? null : String(summary) };
  }

  const textRecord = asRecord(request.text);
  const formatRecord = asRecord(textRecord?.format) ?? { type: 'text' };
  const formatType = formatRecord.type;
  if (formatType !== 'text' && formatType !== 'json_schema' && formatType !== 'json_object') {
    return fail(
      invalid(
        'text.format.type',
        `Invalid value: '${String(formatType)}'. Supported values are: 'text', 'json_schema', and 'json_object'.`,
      ),
    );
  }
  if (formatType === 'json_schema') {
    if (typeof formatRecord.name !== 'string') return fail(missing('text.format.name'));
    if (!asRecord(formatRecord.schema)) return fail(missing('text.format.schema'));
  }

  const include = Array.isArray(request.include) ? request.include.map(String) : [];
  const instructions = typeof request.instructions === 'string' ? request.instructions : null;
  const runImage = Boolean(tools.image) && allowsImage && !triggers.has('no-image');
  return {
    lane,
    model,
    stream,
    store,
    prompt: cleaned,
    triggers,
    inputText: [instructions ?? '', ...input.allTexts].join('\n'),
    inputImages: input.images,
    image: runImage ? tools.image : undefined,
    commentAfterImage: request.tool_choice === undefined || request.tool_choice === 'auto',
    reasoning,
    includeEncryptedReasoning: include.includes('reasoning.encrypted_content'),
    textFormat: { type: formatType, name: formatRecord.name as string | undefined, schema: formatRecord.schema },
    obfuscation: asRecord(request.stream_options)?.include_obfuscation !== false,
    echo: {
      instructions,
      tools: Array.isArray(request.tools) ? request.tools : [],
      tool_choice: request.tool_choice ?? 'auto',
      parallel_tool_calls: request.parallel_tool_calls ?? true,
      previous_response_id: request.previous_response_id ?? null,
      reasoning: reasoning ? { effort: reasoning.effort, summary: reasoning.summary } : { effort: null, summary: null },
      store,
      temperature: request.temperature ?? 1.0,
      top_p: request.top_p ?? 1.0,
      truncation: request.truncation ?? 'disabled',
      text: { format: formatRecord, verbosity: textRecord?.verbosity ?? 'medium' },
      max_output_tokens: request.max_output_tokens ?? null,
      service_tier: request.service_tier ?? 'default',
      metadata: request.metadata ?? {},
      user: request.user ?? null,
      prompt_cache_key: request.prompt_cache_key ?? null,
    },
  };
}
