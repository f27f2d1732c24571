import { ServiceError } from '../../errors.js';
import { ownValue } from '../../../common/own.js';
import type { FlowBind, FlowGraph, FlowWorkflow } from '../../api/flow.js';

// Injection (contract: flow-workflow-catalog §3.3): the request's values go
// into a deep copy of the stored graph at the workflow's bindings, and each
// param the request names into its node's input. A value left undefined
// keeps the stored literal.

export interface FlowValues {
  readonly prompt: string;
  readonly negativePrompt?: string;
  readonly width?: number;
  readonly height?: number;
  readonly seed?: number;
  /** The uploaded reference's name on the server. */
  readonly refImage?: string;
  /** Param values by param name. */
  readonly params: Readonly<Record<string, unknown>>;
}

export function injectGraph(workflow: FlowWorkflow, values: FlowValues): FlowGraph {
  const graph = structuredClone(workflow.graph);
  const set = (field: string, ref: { node: string; input: string } | undefined, value: unknown) => {
    if (value === undefined || !ref) return;
    const node = ownValue(graph, ref.node);
    if (!node)
      throw new ServiceError(
        'FLOW_WORKFLOW_BIND_INVALID',
        `The binding ${field} names node "${ref.node}", which the workflow's graph does not have.`,
        { details: { workflow: workflow.id, bindField: field, node: ref.node } },
      );
    node.inputs[ref.input] = value;
  };
  const { bind } = workflow;
  const fields: [keyof Omit<FlowBind, 'output'>, unknown][] = [
    ['prompt', values.prompt],
    ['negativePrompt', values.negativePrompt],
    ['width', values.width],
    ['height', values.height],
    ['seed', values.seed],
    ['refImage', values.refImage],
  ];
  for (const [field, value] of fields) set(field, bind[field], value);
  for (const param of workflow.params) set(param.name, param, ownValue(values.params, param.name));
  return graph;
}
