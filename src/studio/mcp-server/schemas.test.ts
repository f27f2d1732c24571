import { describe, expect, it } from 'vitest';
import { TOOL_INPUTS, toolJsonSchema, type ToolName } from './schemas.js';

// Issue 46, item 6: the MCP Inspector warned of 8 typeless schema nodes (lane options' values,
// references' items, image, mask, storyboard): some model providers refuse a tool whose schema
// has one. Every node of every tool's input schema says its type.

const KEYWORDS = ['type', 'anyOf', 'oneOf', 'allOf', 'enum', 'const', '$ref'];

/** The paths of schema nodes with no type keyword (a `properties` map is not a schema node). */
function typeless(node: unknown, path: string, found: string[]): string[] {
  if (node === null || typeof node !== 'object') return found;
  if (Array.isArray(node)) {
    node.forEach((item, index) => typeless(item, `${path}[${index}]`, found));
    return found;
  }
  const schema = node as Record<string, unknown>;
  if (!path.endsWith('.properties') && !KEYWORDS.some((keyword) => keyword in schema)) found.push(path || '(root)');
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'properties' && value && typeof value === 'object')
      for (const [name, child] of Object.entries(value)) typeless(child, `${path}.properties.${name}`, found);
    else if (['items', 'additionalProperties', 'anyOf', 'oneOf', 'allOf'].includes(key)) typeless(value, `${path}.${key}`, found);
  }
  return found;
}

describe('the tools’ JSON Schemas', () => {
  it.each(Object.keys(TOOL_INPUTS) as ToolName[])('%s has a type on every node', (name) => {
    expect(typeless(toolJsonSchema(name), '', [])).toEqual([]);
  });

  it('an input image is a string or { data, name? } or { filename }; a storyboard lists clips', () => {
    const edit = toolJsonSchema('edit_image') as { properties: Record<string, { anyOf?: { type: string }[] }> };
    expect(edit.properties.image.anyOf?.map((shape) => shape.type)).toEqual(['string', 'object', 'object']);
    const video = toolJsonSchema('generate_video') as {
      properties: { storyboard: { properties: { clips: { items: { required: string[] } } } } };
    };
    expect(video.properties.storyboard.properties.clips.items.required).toEqual(['prompt']);
  });
});
