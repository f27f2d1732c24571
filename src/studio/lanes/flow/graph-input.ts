import { ServiceError } from '../../errors.js';
import type { FlowGraph } from '../../api/flow.js';
import { isPng, pngTextChunks } from './png-text.js';

// What a registration or an inspection takes as its graph (contract:
// flow-workflow-catalog §1.1): an API-format graph (an object, or its JSON
// text), or a PNG the server saved with the graph in its text chunks. A
// UI-format save is refused with how to export the API format. Bytes are
// judged by their magic, not by the field that carried them.

const UI_FORMAT_HELP =
  'This is the UI format of a workflow (it has a "nodes" array), which the server cannot run. In the node-graph editor, turn on the developer mode options in Settings and use "Save (API Format)" (newer menus: Workflow → Export (API)), then register that file.';

const invalid = (message: string, details: Record<string, unknown> = {}) => new ServiceError('FLOW_WORKFLOW_GRAPH_INVALID', message, { details: { field: 'graph', ...details } });

/** The usable nodes of an API-format graph: entries with a `class_type` and `inputs` (others skipped); `_meta.title` kept. */
function apiGraph(value: unknown): FlowGraph {
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw invalid('The graph must be a JSON object keyed by node id (the API format).');
  if (Array.isArray((value as { nodes?: unknown }).nodes)) throw invalid(UI_FORMAT_HELP, { format: 'ui' });
  const graph: Record<string, FlowGraph[string]> = {};
  for (const [id, node] of Object.entries(value as Record<string, unknown>)) {
    const entry = node as { class_type?: unknown; inputs?: unknown; _meta?: { title?: unknown } } | null;
    if (!entry || typeof entry !== 'object' || typeof entry.class_type !== 'string' || !entry.class_type) continue;
    if (!entry.inputs || typeof entry.inputs !== 'object' || Array.isArray(entry.inputs)) continue;
    const title = typeof entry._meta?.title === 'string' ? entry._meta.title : undefined;
    graph[id] = { class_type: entry.class_type, inputs: entry.inputs as Record<string, unknown>, ...(title !== undefined ? { _meta: { title } } : {}) };
  }
  if (Object.keys(graph).length === 0) throw invalid('The graph has no usable node (each needs a "class_type" and "inputs").');
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
    if (texts.has('workflow')) throw invalid(`The PNG holds only the UI-format workflow. ${UI_FORMAT_HELP}`, { field: 'pngBase64', format: 'ui' });
    throw invalid('The PNG has no workflow metadata (no "prompt" text chunk): use an image the node-graph server saved.', { field: 'pngBase64' });
  }
  return parseGraphText(prompt);
}

function parseGraphText(text: string): FlowGraph {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalid('The graph is not valid JSON.');
  }
  return apiGraph(value);
}

/** The graph of `{ graph }` or `{ pngBase64 }`: exactly one of them. */
export function readGraphInput(input: { graph?: unknown; pngBase64?: string }): FlowGraph {
  const { graph, pngBase64 } = input;
  if ((graph === undefined) === (pngBase64 === undefined)) throw invalid('Send the workflow as "graph" (API-format JSON) or as "pngBase64" (a PNG the server saved), one of them.');
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
