import { z } from 'zod';
import { lazy } from '../../../common/lazy.js';
import type { ModelSpec } from '../types.js';
import type { McpModel, McpParameter } from './catalog.js';

// An MCP model as the lane registry lists it (GET /api/capabilities, `svc
// models`): its kind, a description naming its aspect ratios and input
// roles, and its own options (JSON Schema in the capabilities): `ratio`, one
// of its aspect ratios, and each parameter it declares. POST /api/generate
// validates an image request's `options` by them; the MCP route checks the
// same declarations with the contract's own codes (plan.ts).

function parameterSchema(parameter: McpParameter): z.ZodType {
  const { options } = parameter;
  let schema: z.ZodType;
  if (options?.length) schema = z.literal([...options]);
  else if (parameter.type === 'number')
    schema = z
      .number()
      .min(parameter.min ?? -Infinity)
      .max(parameter.max ?? Infinity);
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
    // Built when a request or the capabilities first read it: the catalog lists its models at start.
    options: lazy(() => {
      const ratio = model.aspectRatios.length ? z.enum(model.aspectRatios as [string, ...string[]]) : z.string().min(1).max(20);
      return z
        .object({
          ratio: ratio.describe('The aspect ratio.').optional(),
          ...Object.fromEntries(model.parameters.map((parameter) => [parameter.name, parameterSchema(parameter)])),
        })
        .strict();
    }),
  };
}
