// A value that satisfies a JSON schema, for `text.format: json_schema`
// requests (e.g. a prompt builder asking for structured output). Strings carry
// the prompt so the answer visibly relates to the request.

const MAX_DEPTH = 8;

export function synthesizeJson(schema: unknown, prompt: string, depth = 0): unknown {
  if (!schema || typeof schema !== 'object' || depth > MAX_DEPTH) return null;
  const node = schema as Record<string, unknown>;
  if (node.const !== undefined) return node.const;
  if (Array.isArray(node.enum) && node.enum.length) return node.enum[0];
  for (const combinator of ['anyOf', 'oneOf', 'allOf']) {
    const options = node[combinator];
    if (Array.isArray(options) && options.length) return synthesizeJson(options[0], prompt, depth + 1);
  }
  const type = Array.isArray(node.type) ? node.type.find((item) => item !== 'null') : node.type;
  switch (type) {
    case 'object': {
      const properties = (node.properties && typeof node.properties === 'object' ? node.properties : {}) as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const [name, child] of Object.entries(properties)) {
        const value = synthesizeJson(child, prompt, depth + 1);
        out[name] = typeof value === 'string' && (child as Record<string, unknown>)?.type === 'string' ? `${name}: ${value}` : value;
      }
      return out;
    }
    case 'array': {
      const minItems = typeof node.minItems === 'number' ? node.minItems : 1;
      return Array.from({ length: Math.max(1, minItems) }, () => synthesizeJson(node.items, prompt, depth + 1));
    }
    case 'string':
      return `Simulated ${prompt ? `for "${prompt.slice(0, 200)}"` : 'text'}`;
    case 'integer':
      return typeof node.minimum === 'number' ? Math.ceil(node.minimum) : 0;
    case 'number':
      return typeof node.minimum === 'number' ? node.minimum : 0;
    case 'boolean':
      return false;
    case 'null':
      return null;
    default:
      return null;
  }
}
