import { z } from 'zod';
import type { ModelSpec } from '../lanes/types.js';
import type { McpModel, McpParameter } from './catalog.js';

// An MCP model as the lane registry lists it (GET /api/capabilities, `svc
// models`): its kind, a description naming its aspect ratios and input
// roles, and its declared parameters as the model's own options (JSON Schema
// in the capabilities). The MCP route validates against the catalog itself.

function parameterSchema(parameter: McpParameter): z.ZodType {
  const { options } = parameter;
  let schema: z.ZodType;
  if (options?.length) schema = z.literal([...options]);
  else if (parameter.type === 'number') schema = z.number().min(parameter.min ?? -Infinity).max(parameter.max ?? Infinity);
  else if (parameter.type === 'boolean') schema = z.boolean();
  else schema = z.string();
  return (parameter.description ? schema.describe(parameter.description) : schema).optional();
}

export function mcpModelSpec(model: McpModel): ModelSpec {
  const ratios = model.aspectRatios.length ? `aspect ratios ${model.aspectRatios.join(', ')}` : 'any aspect ratio';
  return {
    id: model.id,
    kind: model.kind,
    description: `${model.description ? `${model.description}; ` : ''}${model.kind} over MCP; ${ratios}; inputs ${model.inputRoles.join(', ')}.`,
    ...(model.parameters.length ? { options: z.object(Object.fromEntries(model.parameters.map((parameter) => [parameter.name, parameterSchema(parameter)]))).strict() } : {}),
  };
}
