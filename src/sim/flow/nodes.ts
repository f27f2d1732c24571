// The node types the simulated node-graph server knows (contract:
// flow-node-graph-queue §2.5), as its `/object_info` shows them, and the
// validation of an API-format graph against them (§2.2). Only the common
// types: checkpoint, text encode, empty latent, sampler, decode, load image,
// invert, save and preview image.

/** One input's declaration: `[type, options]`; a combo's type is its list of allowed strings. */
export type InputSpec = readonly [string | readonly string[], Readonly<Record<string, unknown>>?];

export interface NodeInfo {
  readonly input: {
    readonly required: Readonly<Record<string, InputSpec>>;
    readonly optional: Readonly<Record<string, InputSpec>>;
    readonly hidden?: Readonly<Record<string, string>>;
  };
  readonly input_order: { readonly required: readonly string[] };
  readonly output: readonly string[];
  readonly output_is_list: readonly boolean[];
  readonly output_name: readonly string[];
  readonly name: string;
  readonly display_name: string;
  readonly description: string;
  readonly python_module: string;
  readonly category: string;
  readonly output_node: boolean;
}

/** The checkpoints the simulated server has. */
export const CHECKPOINTS = ['sim-base-1.5.safetensors', 'sim-xl-1.0.safetensors'] as const;
export const SAMPLERS = ['euler', 'euler_ancestral', 'dpmpp_2m', 'ddim'] as const;
export const SCHEDULERS = ['normal', 'karras', 'simple'] as const;

/** The server's seed range is 64-bit; as a JSON number it reads as 2^64. */
const SEED_MAX = 2 ** 64 - 1;

function node(
  name: string,
  category: string,
  required: Record<string, InputSpec>,
  output: string[],
  extra: { optional?: Record<string, InputSpec>; outputNode?: boolean; outputNames?: string[] } = {},
): NodeInfo {
  return {
    input: {
      required,
      optional: extra.optional ?? {},
      ...(extra.outputNode ? { hidden: { prompt: 'PROMPT', extra_pnginfo: 'EXTRA_PNGINFO' } } : {}),
    },
    input_order: { required: Object.keys(required) },
    output,
    output_is_list: output.map(() => false),
    output_name: extra.outputNames ?? output,
    name,
    display_name: name.replace(/([a-z])([A-Z])/g, '$1 $2'),
    description: '',
    python_module: 'nodes',
    category,
    output_node: extra.outputNode === true,
  };
}

export const NODE_TYPES: Readonly<Record<string, NodeInfo>> = {
  CheckpointLoaderSimple: node('CheckpointLoaderSimple', 'loaders', { ckpt_name: [CHECKPOINTS] }, ['MODEL', 'CLIP', 'VAE']),
  CLIPTextEncode: node('CLIPTextEncode', 'conditioning', { text: ['STRING', { multiline: true, dynamicPrompts: true }], clip: ['CLIP'] }, [
    'CONDITIONING',
  ]),
  EmptyLatentImage: node(
    'EmptyLatentImage',
    'latent',
    {
      width: ['INT', { default: 512, min: 16, max: 8192, step: 8 }],
      height: ['INT', { default: 512, min: 16, max: 8192, step: 8 }],
      batch_size: ['INT', { default: 1, min: 1, max: 4096 }],
    },
    ['LATENT'],
  ),
  KSampler: node(
    'KSampler',
    'sampling',
    {
      model: ['MODEL'],
      seed: ['INT', { default: 0, min: 0, max: SEED_MAX, control_after_generate: true }],
      steps: ['INT', { default: 20, min: 1, max: 10000 }],
      cfg: ['FLOAT', { default: 8, min: 0, max: 100, step: 0.1, round: 0.01 }],
      sampler_name: [SAMPLERS],
      scheduler: [SCHEDULERS],
      positive: ['CONDITIONING'],
      negative: ['CONDITIONING'],
      latent_image: ['LATENT'],
      denoise: ['FLOAT', { default: 1, min: 0, max: 1, step: 0.01 }],
    },
    ['LATENT'],
  ),
  VAEDecode: node('VAEDecode', 'latent', { samples: ['LATENT'], vae: ['VAE'] }, ['IMAGE']),
  LoadImage: node('LoadImage', 'image', { image: [[], { image_upload: true }] }, ['IMAGE', 'MASK']),
  ImageInvert: node('ImageInvert', 'image', { image: ['IMAGE'] }, ['IMAGE']),
  SaveImage: node('SaveImage', 'image', { images: ['IMAGE'], filename_prefix: ['STRING', { default: 'flow' }] }, [], { outputNode: true }),
  PreviewImage: node('PreviewImage', 'image', { images: ['IMAGE'] }, [], { outputNode: true }),
};

/** An API-format graph: node id → node. */
export type ApiGraph = Readonly<
  Record<
    string,
    { readonly class_type: string; readonly inputs: Readonly<Record<string, unknown>>; readonly _meta?: { readonly title?: string } }
  >
>;

export interface NodeError {
  readonly type: string;
  readonly message: string;
  readonly details: string;
  readonly extra_info: Readonly<Record<string, unknown>>;
}

/** `["<node id>", <slot>]`: a link to another node's output. */
export const isLink = (value: unknown): value is [string, number] =>
  Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && Number.isInteger(value[1]);

/** The `/object_info` answer, with the combo of LoadImage listing the files uploaded so far. */
export function objectInfo(inputs: readonly string[]): Record<string, NodeInfo> {
  const load = NODE_TYPES.LoadImage;
  return {
    ...NODE_TYPES,
    LoadImage: { ...load, input: { ...load.input, required: { image: [[...inputs].sort(), { image_upload: true }] } } },
  };
}

function checkValue(name: string, spec: InputSpec, value: unknown, inputs: readonly string[]): NodeError | undefined {
  const [type, options = {}] = spec;
  const error = (kind: string, message: string, details: string): NodeError => ({
    type: kind,
    message,
    details,
    extra_info: { input_name: name, input_config: spec, received_value: value },
  });
  if (Array.isArray(type)) {
    // A combo; LoadImage's is declared empty here and holds the files uploaded so far.
    const allowed = type.length ? type : inputs;
    if (typeof value !== 'string' || !allowed.includes(value))
      return error('value_not_in_list', 'Value not in list', `${name}: '${String(value)}' not in ${JSON.stringify(allowed)}`);
    return undefined;
  }
  if (type === 'INT' || type === 'FLOAT') {
    if (typeof value !== 'number' || !Number.isFinite(value) || (type === 'INT' && !Number.isInteger(value)))
      return error('invalid_input_type', 'Failed to convert an input value to a ' + type + ' value', `${name}, ${String(value)}`);
    if (typeof options.min === 'number' && value < options.min)
      return error('value_smaller_than_min', `Value ${value} smaller than min of ${options.min}`, `${name}`);
    if (typeof options.max === 'number' && value > options.max)
      return error('value_bigger_than_max', `Value ${value} bigger than max of ${options.max}`, `${name}`);
    return undefined;
  }
  if (type === 'STRING' && typeof value !== 'string')
    return error('invalid_input_type', 'Failed to convert an input value to a STRING value', `${name}, ${String(value)}`);
  return undefined;
}

/** Validation as the server does it (§2.2): per-node errors, an unknown type, no output node. */
export function validateGraph(
  graph: ApiGraph,
  inputs: readonly string[],
): { readonly error?: Record<string, unknown>; readonly nodeErrors: Record<string, unknown>; readonly outputs: string[] } {
  const nodeErrors: Record<string, unknown> = {};
  const outputs: string[] = [];
  for (const [id, entry] of Object.entries(graph)) {
    const info = typeof entry?.class_type === 'string' ? NODE_TYPES[entry.class_type] : undefined;
    if (!info) {
      const classType = String(entry?.class_type);
      return {
        error: {
          type: 'missing_node_type',
          message: `Node '${classType}' not found. The custom node may not be installed.`,
          details: `Node ID '#${id}'`,
          extra_info: { node_id: id, class_type: classType, node_title: entry?._meta?.title ?? classType },
        },
        nodeErrors: {},
        outputs: [],
      };
    }
    if (info.output_node) outputs.push(id);
  }
  if (outputs.length === 0)
    return { error: { type: 'prompt_no_outputs', message: 'Prompt has no outputs', details: '', extra_info: {} }, nodeErrors, outputs };
  for (const [id, entry] of Object.entries(graph)) {
    const info = NODE_TYPES[entry.class_type];
    const errors: NodeError[] = [];
    for (const [name, spec] of Object.entries(info.input.required)) {
      const value = entry.inputs?.[name];
      if (value === undefined) {
        errors.push({
          type: 'required_input_missing',
          message: 'Required input is missing',
          details: name,
          extra_info: { input_name: name },
        });
        continue;
      }
      if (isLink(value)) {
        const source = graph[value[0]];
        const produced = source ? NODE_TYPES[source.class_type]?.output[value[1]] : undefined;
        if (!produced)
          errors.push({
            type: 'bad_linked_input',
            message: 'Bad linked input, must be a length-2 list of [string, int]',
            details: `${name}, ${JSON.stringify(value)}`,
            extra_info: { input_name: name, received_value: value },
          });
        else if (typeof spec[0] === 'string' && produced !== spec[0])
          errors.push({
            type: 'return_type_mismatch',
            message: 'Return type mismatch between linked nodes',
            details: `${name}, received_type(${produced}) mismatch input_type(${spec[0]})`,
            extra_info: { input_name: name, received_type: produced, linked_node: value },
          });
        continue;
      }
      const problem = checkValue(name, spec, value, inputs);
      if (problem) errors.push(problem);
    }
    if (errors.length) nodeErrors[id] = { errors, dependent_outputs: outputs, class_type: entry.class_type };
  }
  if (Object.keys(nodeErrors).length) {
    const first = Object.values(nodeErrors)[0] as { errors: NodeError[] };
    return {
      error: {
        type: 'prompt_outputs_failed_validation',
        message: 'Prompt outputs failed validation',
        details: `${first.errors[0].message}: ${first.errors[0].details}`,
        extra_info: {},
      },
      nodeErrors,
      outputs,
    };
  }
  return { nodeErrors, outputs };
}

/** The nodes in an order where every link's source runs first (the graph was validated: links exist). */
export function executionOrder(graph: ApiGraph): string[] {
  const order: string[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (id: string) => {
    if (state.get(id)) return;
    state.set(id, 'visiting');
    for (const value of Object.values(graph[id].inputs)) if (isLink(value) && graph[value[0]]) visit(value[0]);
    state.set(id, 'done');
    order.push(id);
  };
  for (const id of Object.keys(graph)) visit(id);
  return order;
}
