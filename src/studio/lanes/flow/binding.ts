import { z } from 'zod';
import { ServiceError } from '../../errors.js';
import { ownValue } from '../../../common/own.js';
import {
  FLOW_MEDIA_KINDS,
  FLOW_WORKFLOW_LIMITS,
  flowBind,
  type FlowBind,
  type FlowBindCandidate,
  type FlowBindField,
  type FlowGraph,
  type FlowMediaKind,
  type FlowParam,
} from '../../api/flow.js';

// Binding inference and the params of a workflow (contract:
// flow-workflow-catalog §1.2–1.3). A field is bound to a literal input of a
// node of a known type; several candidate nodes make it ambiguous (two text
// encoders are the normal case: titles are not trusted to tell positive from
// negative), and the user chooses. Every other scalar literal input is a
// param: an option of the model, typed by the server's `/object_info`.

/** Where each field may be bound: node type → input (§1.3). */
const BIND_RULES: Readonly<Record<Exclude<FlowBindField, 'negativePrompt' | 'output'>, readonly (readonly [string, string])[]>> = {
  prompt: [['CLIPTextEncode', 'text']],
  width: [['EmptyLatentImage', 'width']],
  height: [['EmptyLatentImage', 'height']],
  seed: [
    ['KSampler', 'seed'],
    ['RandomNoise', 'noise_seed'],
  ],
  refImage: [['LoadImage', 'image']],
};
/** Output nodes and the media they make. */
const OUTPUT_NODES: Readonly<Record<string, FlowMediaKind>> = { SaveImage: 'image', SaveVideo: 'video' };

const isLink = (value: unknown): boolean =>
  Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && typeof value[1] === 'number';
const isScalar = (value: unknown): value is string | number | boolean => ['string', 'number', 'boolean'].includes(typeof value);

/** Every place each field could be bound, each marked unambiguous when it is its field's only one. */
export function bindCandidates(graph: FlowGraph): FlowBindCandidate[] {
  const found: Omit<FlowBindCandidate, 'unambiguous'>[] = [];
  for (const [id, node] of Object.entries(graph)) {
    const title = node._meta?.title;
    for (const [field, rules] of Object.entries(BIND_RULES) as [FlowBindField, readonly (readonly [string, string])[]][]) {
      for (const [classType, input] of rules) {
        if (node.class_type === classType && Object.hasOwn(node.inputs, input) && !isLink(node.inputs[input]))
          found.push({ field, node: id, input, classType, ...(title ? { title } : {}) });
      }
    }
    if (Object.hasOwn(OUTPUT_NODES, node.class_type))
      found.push({ field: 'output', node: id, classType: node.class_type, ...(title ? { title } : {}) });
  }
  const count = (field: FlowBindField) => found.filter((candidate) => candidate.field === field).length;
  return found.map((candidate) => ({ ...candidate, unambiguous: count(candidate.field) === 1 }));
}

/** The binding the unambiguous candidates give (fields with several candidates left for the user). */
export function inferredBind(candidates: readonly FlowBindCandidate[]): Partial<FlowBind> {
  const bind: Record<string, unknown> = {};
  for (const candidate of candidates) {
    if (!candidate.unambiguous) continue;
    bind[candidate.field] = candidate.field === 'output' ? { node: candidate.node } : { node: candidate.node, input: candidate.input };
  }
  return bind as Partial<FlowBind>;
}

/** Whether the user has to choose: prompt or output not found exactly once, or any field ambiguous. */
export const needsConfirmation = (candidates: readonly FlowBindCandidate[]): boolean =>
  candidates.some((candidate) => !candidate.unambiguous) ||
  !(['prompt', 'output'] as const).every((field) => candidates.some((candidate) => candidate.field === field && candidate.unambiguous));

/** The media kind of an output node, when it is a known one. */
export const mediaKindOfOutput = (graph: FlowGraph, node: string): FlowMediaKind | undefined =>
  ownValue(OUTPUT_NODES, ownValue(graph, node)?.class_type ?? '');

const bindError = (message: string, details: Record<string, unknown>) =>
  new ServiceError('FLOW_WORKFLOW_BIND_INVALID', message, { details: { field: 'bind', ...details } });

/**
 * A binding checked against its graph: the shape, every node present, every input a literal the
 * node has (so injecting it replaces a value and never cuts a link). Without one, the inferred
 * binding when it has no ambiguity.
 */
export function checkBind(graph: FlowGraph, value: unknown): FlowBind {
  const candidates = bindCandidates(graph);
  if (value === undefined) {
    const inferred = inferredBind(candidates);
    const missing = (['prompt', 'output'] as const).filter((field) => !inferred[field]);
    if (missing.length) {
      const choices = candidates.filter((candidate) => missing.includes(candidate.field as 'prompt' | 'output'));
      throw bindError(
        `Choose the ${missing.join(' and ')} binding: ${choices.length ? 'several nodes qualify' : 'no node qualifies'} (inspect the graph with POST /api/flow/inspect).`,
        { missing, candidates: choices },
      );
    }
    value = inferred;
  }
  const parsed = flowBind.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw bindError(`bind.${issue.path.map(String).join('.')}: ${issue.message}`, { path: issue.path.map(String) });
  }
  const bind = parsed.data;
  for (const [field, ref] of Object.entries(bind) as [FlowBindField, { node: string; input?: string }][]) {
    const node = ownValue(graph, ref.node);
    if (!node)
      throw bindError(`bind.${field} names node "${ref.node}", which the graph does not have.`, { bindField: field, node: ref.node });
    if (ref.input === undefined) continue;
    if (!Object.hasOwn(node.inputs, ref.input))
      throw bindError(`bind.${field}: node "${ref.node}" (${node.class_type}) has no input "${ref.input}".`, {
        bindField: field,
        node: ref.node,
        input: ref.input,
      });
    if (isLink(node.inputs[ref.input]))
      throw bindError(`bind.${field}: input "${ref.input}" of node "${ref.node}" is a link, not a value.`, {
        bindField: field,
        node: ref.node,
        input: ref.input,
      });
  }
  return bind;
}

/** The media kind: as given (checked), else the output node's, else `image`. */
export function checkMediaKind(graph: FlowGraph, bind: FlowBind, given: string | undefined): FlowMediaKind {
  const ofOutput = mediaKindOfOutput(graph, bind.output.node);
  if (given === undefined) return ofOutput ?? 'image';
  if (!(FLOW_MEDIA_KINDS as readonly string[]).includes(given)) {
    throw new ServiceError(
      'FLOW_WORKFLOW_MEDIA_KIND_INVALID',
      `mediaKind "${given.slice(0, 20)}" is not one of ${FLOW_MEDIA_KINDS.join(', ')}.`,
      { details: { field: 'mediaKind', valid: FLOW_MEDIA_KINDS } },
    );
  }
  if (ofOutput && ofOutput !== given) {
    throw new ServiceError(
      'FLOW_WORKFLOW_MEDIA_KIND_MISMATCH',
      `mediaKind is ${given}, but the output node "${bind.output.node}" (${ownValue(graph, bind.output.node)?.class_type}) makes ${ofOutput}.`,
      { details: { field: 'mediaKind', output: bind.output.node, outputKind: ofOutput } },
    );
  }
  return given as FlowMediaKind;
}

/** `/object_info` as far as params need it: each type's declared inputs. */
export type NodeCatalog = Readonly<
  Record<
    string,
    { readonly input?: { readonly required?: Readonly<Record<string, unknown>>; readonly optional?: Readonly<Record<string, unknown>> } }
  >
>;

/** An input's declaration in the catalog: `[type | choices, options?]`. */
function declaration(
  catalog: NodeCatalog | undefined,
  classType: string,
  input: string,
): { type?: unknown; options: Record<string, unknown> } | undefined {
  const inputs = ownValue(catalog, classType)?.input;
  const spec = ownValue(inputs?.required, input) ?? ownValue(inputs?.optional, input);
  if (!Array.isArray(spec)) return undefined;
  const options = spec[1] && typeof spec[1] === 'object' ? (spec[1] as Record<string, unknown>) : {};
  return { type: spec[0], options };
}

function paramOf(
  name: string,
  node: string,
  classType: string,
  input: string,
  value: string | number | boolean,
  catalog: NodeCatalog | undefined,
): FlowParam {
  const declared = declaration(catalog, classType, input);
  const listed = Array.isArray(declared?.type)
    ? (declared.type as unknown[])
    : Array.isArray(declared?.options.options)
      ? (declared.options.options as unknown[])
      : undefined;
  const choices = listed
    ?.filter((choice): choice is string => typeof choice === 'string' && choice.length <= FLOW_WORKFLOW_LIMITS.maxStringLength)
    .slice(0, FLOW_WORKFLOW_LIMITS.maxChoices);
  const number = (key: string) =>
    typeof declared?.options[key] === 'number' && Number.isFinite(declared.options[key]) ? { [key]: declared.options[key] as number } : {};
  let type: FlowParam['type'];
  if (declared?.type === 'INT') type = 'integer';
  else if (declared?.type === 'FLOAT') type = 'number';
  else if (declared?.type === 'BOOLEAN') type = 'boolean';
  else if (declared?.type === 'STRING' || choices) type = 'string';
  else
    type = typeof value === 'number' ? (Number.isInteger(value) ? 'integer' : 'number') : typeof value === 'boolean' ? 'boolean' : 'string';
  return {
    name,
    node,
    input,
    type,
    default: value,
    ...(type === 'integer' || type === 'number' ? { ...number('min'), ...number('max') } : {}),
    ...(choices?.length ? { choices } : {}),
  };
}

/**
 * Every scalar literal input the binding does not consume, named `<class_type>.<input>`; when two
 * nodes of one type would give the same name, each is `<class_type>.<node id>.<input>`. Types and
 * ranges come from the server's catalog when it answered, else from the value itself.
 */
export function deriveParams(graph: FlowGraph, bind: Partial<FlowBind>, catalog: NodeCatalog | undefined): FlowParam[] {
  const bound = new Set(Object.values(bind).flatMap((ref) => (ref && 'input' in ref ? [`${ref.node}\u0000${ref.input}`] : [])));
  const free: { node: string; classType: string; input: string; value: string | number | boolean }[] = [];
  for (const [node, entry] of Object.entries(graph)) {
    for (const [input, value] of Object.entries(entry.inputs)) {
      if (!isScalar(value) || bound.has(`${node}\u0000${input}`)) continue;
      free.push({ node, classType: entry.class_type, input, value });
    }
  }
  const plain = (item: (typeof free)[number]) => `${item.classType}.${item.input}`;
  const counts = new Map<string, number>();
  for (const item of free) counts.set(plain(item), (counts.get(plain(item)) ?? 0) + 1);
  return free.map((item) =>
    paramOf(
      (counts.get(plain(item)) ?? 0) > 1 ? `${item.classType}.${item.node}.${item.input}` : plain(item),
      item.node,
      item.classType,
      item.input,
      item.value,
      catalog,
    ),
  );
}

/** Params a registration supplies, checked against the graph (each names a scalar input of a node). */
export function checkParams(graph: FlowGraph, params: readonly FlowParam[]): FlowParam[] {
  const names = new Set<string>();
  for (const param of params) {
    const node = ownValue(graph, param.node);
    if (!node || !Object.hasOwn(node.inputs, param.input) || isLink(node.inputs[param.input]))
      throw bindError(
        `params: "${param.name}" names ${node ? `input "${param.input}" of node "${param.node}", not a value it has` : `node "${param.node}", which the graph does not have`}.`,
        { param: param.name },
      );
    if (param.name === 'seed')
      throw bindError('params: "seed" is the name of the bound seed option; give this param another name.', { param: param.name });
    if (names.has(param.name)) throw bindError(`params: the name "${param.name}" is used twice.`, { param: param.name });
    names.add(param.name);
  }
  return [...params];
}

/**
 * A workflow's options, as the request's `options` gives them: its params (typed, ranged, combos
 * as their values) and `seed` when the workflow binds one. Strict: an unknown name is refused.
 */
export function workflowOptions(bind: FlowBind, params: readonly FlowParam[]): z.ZodObject {
  const shape: Record<string, z.ZodType> = {};
  for (const param of params) {
    let schema: z.ZodType;
    if (param.choices?.length) schema = z.enum(param.choices as [string, ...string[]]);
    else if (param.type === 'boolean') schema = z.boolean();
    else if (param.type === 'string') schema = z.string().max(32_000);
    else {
      let number = param.type === 'integer' ? z.number().int() : z.number();
      if (param.min !== undefined) number = number.min(param.min);
      if (param.max !== undefined) number = number.max(param.max);
      schema = number;
    }
    shape[param.name] = (param.default !== undefined ? schema.describe(`default ${JSON.stringify(param.default)}`) : schema).optional();
  }
  if (bind.seed) shape.seed = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).describe('the bound seed').optional();
  return z.object(shape).strict();
}
