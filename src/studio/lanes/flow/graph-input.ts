import { ServiceError } from '../../errors.js';
import { brokenJsonBound, jsonBoundMessage } from '../../../common/json-bounds.js';
import { FLOW_WORKFLOW_LIMITS, type FlowGraph } from '../../api/flow.js';
import { isPng, pngTextChunks } from './png-text.js';

// What a registration or an inspection takes as its graph (contract:
// flow-workflow-catalog §1.1): an API-format graph (an object, or its JSON
// text), or a PNG the server saved with the graph in its text chunks. A
// UI-format save is refused with how to export the API format. Bytes are
// judged by their magic, not by the field that carried them. A graph is held
// to FLOW_WORKFLOW_LIMITS before anything else reads it: its text's bytes
// before parsing, its shape (an iterative walk) before any recursive one.

const UI_FORMAT_HELP =
  'This is the UI format of a workflow (it has a "nodes" array), which the server cannot run. In the node-graph editor, turn on the developer mode options in Settings and use "Save (API Format)" (newer menus: Workflow → Export (API)), then register that file.';

const invalid = (message: string, details: Record<string, unknown> = {}) =>
  new ServiceError('FLOW_WORKFLOW_GRAPH_INVALID', message, { details: { field: 'graph', ...details } });

const tooLarge = (message: string, details: Record<string, unknown>) =>
  new ServiceError('FLOW_WORKFLOW_TOO_LARGE', message, { details: { field: 'graph', ...details } });

function checkGraphBytes(bytes: number): void {
  const max = FLOW_WORKFLOW_LIMITS.maxGraphBytes;
  if (bytes > max) throw tooLarge(`A workflow graph is at most ${max} bytes as JSON; this one is ${bytes}.`, { max, got: bytes });
}

/** The graph document's shape, then its size as JSON (safe to serialize once its depth is bounded). */
function checkGraphBounds(value: unknown, knownBytes?: number): void {
  const { maxDepth, maxValues, maxStringLength, maxNodes } = FLOW_WORKFLOW_LIMITS;
  const broken = brokenJsonBound(value, { maxDepth, maxValues, maxStringLength });
  if (broken) throw tooLarge(jsonBoundMessage('The workflow graph', broken), { bound: broken.bound, max: broken.max, path: broken.path });
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const nodes = Object.keys(value).length;
    if (nodes > maxNodes)
      throw tooLarge(`A workflow graph holds at most ${maxNodes} nodes; this one has ${nodes}.`, {
        bound: 'nodes',
        max: maxNodes,
        got: nodes,
      });
  }
  checkGraphBytes(knownBytes ?? Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8'));
}

/** The usable nodes of an API-format graph: entries with a `class_type` and `inputs` (others skipped); `_meta.title` kept. */
function apiGraph(value: unknown, textBytes?: number): FlowGraph {
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw invalid('The graph must be a JSON object keyed by node id (the API format).');
  if (Array.isArray((value as { nodes?: unknown }).nodes)) throw invalid(UI_FORMAT_HELP, { format: 'ui' });
  checkGraphBounds(value, textBytes);
  // Built from entries, so a node id such as "__proto__" is an own key like any other.
  const nodes: [string, FlowGraph[string]][] = [];
  for (const [id, node] of Object.entries(value as Record<string, unknown>)) {
    const entry = node as { class_type?: unknown; inputs?: unknown; _meta?: { title?: unknown } } | null;
    if (id === '__proto__') throw invalid('"__proto__" is not a usable node id: rename the node.', { node: id });
    if (!entry || typeof entry !== 'object' || typeof entry.class_type !== 'string' || !entry.class_type) continue;
    if (!entry.inputs || typeof entry.inputs !== 'object' || Array.isArray(entry.inputs)) continue;
    const title = typeof entry._meta?.title === 'string' ? entry._meta.title : undefined;
    nodes.push([
      id,
      {
        class_type: entry.class_type,
        inputs: entry.inputs as Record<string, unknown>,
        ...(title !== undefined ? { _meta: { title } } : {}),
      },
    ]);
  }
  const graph: FlowGraph = Object.fromEntries(nodes);
  if (nodes.length === 0) throw invalid('The graph has no usable node (each needs a "class_type" and "inputs").');
  return graph;
}

/** The graph a PNG carries under the keyword `prompt`; a PNG with only `workflow` (the UI format) is refused. */
function graphOfPng(bytes: Buffer): FlowGraph {
  let texts: Map<string, string>;
  try {
    texts = pngTextChunks(bytes);
  } catch (error) {
    throw invalid(`The PNG could not be read: ${(error as Error).message}.`, { field: 'pngBase64' });
  }
  const prompt = texts.get('prompt');
  if (prompt === undefined) {
    if (texts.has('workflow'))
      throw invalid(`The PNG holds only the UI-format workflow. ${UI_FORMAT_HELP}`, { field: 'pngBase64', format: 'ui' });
    throw invalid('The PNG has no workflow metadata (no "prompt" text chunk): use an image the node-graph server saved.', {
      field: 'pngBase64',
    });
  }
  return parseGraphText(prompt);
}

function parseGraphText(text: string): FlowGraph {
  const bytes = Buffer.byteLength(text, 'utf8');
  checkGraphBytes(bytes);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalid('The graph is not valid JSON.');
  }
  return apiGraph(value, bytes);
}

/** The graph of `{ graph }` or `{ pngBase64 }`: exactly one of them. */
export function readGraphInput(input: { graph?: unknown; pngBase64?: string }): FlowGraph {
  const { graph, pngBase64 } = input;
  if ((graph === undefined) === (pngBase64 === undefined))
    throw invalid('Send the workflow as "graph" (API-format JSON) or as "pngBase64" (a PNG the server saved), one of them.');
  if (pngBase64 !== undefined) {
    const bytes = Buffer.from(pngBase64.replace(/^data:[^,]*,/, ''), 'base64');
    if (!isPng(bytes)) throw invalid('pngBase64 does not hold a PNG file.', { field: 'pngBase64' });
    return graphOfPng(bytes);
  }
  if (typeof graph === 'string') {
    const trimmed = graph.trim();
    if (!trimmed.startsWith('{')) {
      const bytes = Buffer.from(trimmed.replace(/^data:[^,]*,/, ''), 'base64');
      if (isPng(bytes)) return graphOfPng(bytes);
    }
    return parseGraphText(trimmed);
  }
  return apiGraph(graph);
}
