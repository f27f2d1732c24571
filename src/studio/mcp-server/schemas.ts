import { z } from 'zod';
import {
  editRequest,
  generateRequest,
  historyQuery,
  LANE_IDS,
  REQUEST_ID_PATTERN,
  storyboardClip,
  videoGenerateRequest,
} from '../api/index.js';
import { derivedQuery } from '../routes/assets.js';
import { TRACE_PRESET_NAMES } from '../vector/presets.js';

// The input of each tool of the studio's MCP server: the API's own schema (so
// a bad input gets the API's answer and code), less the fields that say how an
// HTTP answer is delivered (the MCP call is the delivery), with descriptions
// for the client's model. `tools/list` shows them as JSON Schema.

/** What the model reading `tools/list` is told about a field the API schema leaves undescribed. */
const FIELD_DESCRIPTIONS: Readonly<Record<string, string>> = {
  prompt: 'What to make, in words.',
  provider: `The lane to run on (${LANE_IDS.join(', ')}), or auto; default: the studio's default lane.`,
  model: "The lane's model id (see list_models; generate_video also takes <lane>/<model>); default: the lane's default model.",
  quality: 'Rendering quality where the lane has it.',
  size: 'Output size as <width>x<height>, e.g. 1024x1024.',
  format: 'Image file format.',
  moderation: 'Moderation level where the lane has it.',
  reasoning: 'Reasoning effort of the planner model where the lane has one.',
  options: "The lane's own controls (e.g. aspectRatio), validated by the lane.",
  references: 'Reference images: each a data URL, plain base64, a history file name, { data, name? } or { filename }.',
  negativePrompt: 'What the image must not show, where the lane has it.',
  requestId: "The job's id (letters, digits, . _ - ~); the same id with the same input answers the same job, never a second run.",
  priority: 'Its place in the queue when jobs wait: higher runs first (default 0).',
  image: 'The image to edit: a data URL, plain base64, a history file name, { data, name? } or { filename }.',
  mask: 'Where to edit (transparent = editable), same shapes as image; where the lane supports masks.',
  duration: "Length in whole seconds, as the video model allows (list_models: the lane's video limits).",
  resolution: 'e.g. 480p, 720p or 1080p, as the video model allows.',
  aspectRatio: 'e.g. 16:9, 1:1 or 9:16, as the video model allows.',
  plannerModel: 'The planner model that writes the final prompt (lanes with a planner).',
  storyboard: '{ clips: [{ prompt, duration? }, ...] }: 2–8 clips made one after another, joined into one video.',
  source: 'The history file name of the PNG, JPEG or WebP image to trace.',
  preset: `A tracing preset: ${TRACE_PRESET_NAMES.join(', ')}.`,
  limit: 'Items per page.',
  cursor: 'The nextCursor of the previous page.',
  q: 'Words of the prompt (full-text).',
  kind: 'What an asset is (image, video, vector-svg) or what made it (generate, edit, trace...).',
  since: 'Made at or after this ISO 8601 instant.',
  until: 'Made before this ISO 8601 instant.',
  filename: 'The history file name (as results and list_history give it).',
};

/** The HTTP delivery fields no tool takes. */
const DELIVERY = { async: true, cancelOnDisconnect: true } as const;

type Shape = Record<string, z.ZodType>;

/** The same object schema, each field with its description (the API's checks unchanged). */
function described<S extends Shape>(schema: z.ZodObject<S>): z.ZodObject<S> {
  const shape = Object.fromEntries(
    Object.entries(schema.shape).map(([key, field]) => [
      key,
      FIELD_DESCRIPTIONS[key] && !field.description ? field.describe(FIELD_DESCRIPTIONS[key]) : field,
    ]),
  );
  return schema.extend(shape) as unknown as z.ZodObject<S>;
}

const requestId = z.string().regex(REQUEST_ID_PATTERN).describe('The requestId of a job (every job tool answers it).');

/** The trace query without `kind` (always vector-svg); tracer parameters as the route reads them. */
const traceInput = described(derivedQuery.omit({ kind: true, ...DELIVERY }));

/** Each tool's input, by tool name. */
export const TOOL_INPUTS = {
  generate_image: described(generateRequest.omit(DELIVERY)),
  edit_image: described(editRequest.omit(DELIVERY)),
  generate_video: described(videoGenerateRequest.omit(DELIVERY)),
  trace_to_svg: traceInput,
  // The session grouping is the web UI's view; a tool lists items.
  list_history: historyQuery,
  get_asset: z.object({ filename: z.string().min(1).max(200).describe(FIELD_DESCRIPTIONS.filename) }).strict(),
  job_status: z.object({ requestId }).strict(),
  cancel_job: z.object({ requestId }).strict(),
  list_models: z
    .object({
      provider: z
        .enum(LANE_IDS as unknown as [string, ...string[]])
        .optional()
        .describe('Only this lane.'),
    })
    .strict(),
} as const;

export type ToolName = keyof typeof TOOL_INPUTS;

/**
 * What the SDK checks a call against: any object. The tool checks its input itself with the
 * schema above, so a refusal carries the studio's code; `tools/list` shows that schema.
 */
export const PASS_THROUGH = z.looseObject({});

/**
 * The JSON shapes of the API's fields that it leaves open (`unknown`: checked when loaded), so every
 * schema node has a type (the MCP Inspector warns of typeless ones, which not every client's model
 * provider takes): an input image, a lane option's value, a storyboard.
 */
const IMAGE_INPUT_JSON = {
  anyOf: [
    { type: 'string', description: 'A data URL, plain base64 or a history file name.' },
    { type: 'object', properties: { data: { type: 'string' }, name: { type: 'string' } }, required: ['data'], additionalProperties: false },
    { type: 'object', properties: { filename: { type: 'string' } }, required: ['filename'], additionalProperties: false },
  ],
};
const OPTION_VALUE_JSON = { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] };
const STORYBOARD_JSON = {
  type: 'object',
  properties: {
    clips: { type: 'array', items: (({ $schema: _schema, ...clip }) => clip)(z.toJSONSchema(storyboardClip, { io: 'input' })) },
  },
  required: ['clips'],
  additionalProperties: false,
};

/** The open shape at a property path, by the field it belongs to. */
function openShape(path: readonly (string | number)[]): Record<string, unknown> | undefined {
  const [first, second, third] = path;
  if (first !== 'properties') return undefined;
  if (second === 'image' || second === 'mask' || (second === 'references' && third === 'items')) return IMAGE_INPUT_JSON;
  if (second === 'options' && third === 'additionalProperties') return OPTION_VALUE_JSON;
  if (second === 'storyboard') return STORYBOARD_JSON;
  return undefined;
}

/** The JSON Schema `tools/list` shows for a tool: what a client may send (the input side of transforms), every node typed. */
export const toolJsonSchema = (name: ToolName): Record<string, unknown> => {
  const { $schema: _schema, ...json } = z.toJSONSchema(TOOL_INPUTS[name], {
    io: 'input',
    unrepresentable: 'any',
    override: ({ zodSchema, jsonSchema, path }) => {
      const shape = zodSchema._zod.def.type === 'unknown' ? openShape(path) : undefined;
      if (shape) Object.assign(jsonSchema, structuredClone(shape));
    },
  }) as Record<string, unknown>;
  return json;
};
