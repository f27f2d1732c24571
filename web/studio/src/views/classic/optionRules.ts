import type { LaneChoice } from './laneChoice';

// A lane's own options as its JSON Schema (capabilities) declares them: what
// each field shows as its range and default, and what a value breaks.

/** The part of JSON Schema a lane's options use. */
export interface PropertySchema {
  type?: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  default?: unknown;
  description?: string;
  title?: string;
}

export const optionProperties = (choice: LaneChoice): Record<string, PropertySchema> =>
  (choice.options?.properties ?? {}) as Record<string, PropertySchema>;

export const labelOf = (name: string, schema: PropertySchema): string =>
  schema.title ?? name.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/^./, (first) => first.toUpperCase());

const shown = (value: unknown): string => (typeof value === 'boolean' ? (value ? 'on' : 'off') : String(value));

/** "1–50, default 23": the range and default a field shows under its label. */
export function optionHint(schema: PropertySchema): string | undefined {
  const parts: string[] = [];
  if (schema.minimum !== undefined && schema.maximum !== undefined)
    parts.push(`${schema.minimum}–${schema.maximum}${schema.type === 'integer' ? ', whole numbers' : ''}`);
  else if (schema.minimum !== undefined) parts.push(`at least ${schema.minimum}`);
  else if (schema.maximum !== undefined) parts.push(`at most ${schema.maximum}`);
  if (schema.default !== undefined) parts.push(`default ${shown(schema.default)}`);
  if (schema.description) parts.push(schema.description);
  return parts.length > 0 ? parts.join('; ') : undefined;
}

/** Why a value does not fit its schema, or undefined when it does (or is unset: the lane's default runs). */
export function optionProblem(schema: PropertySchema, value: unknown): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (schema.type === 'integer' || schema.type === 'number') {
    if (typeof value !== 'number' || Number.isNaN(value)) return 'must be a number';
    if (schema.type === 'integer' && !Number.isInteger(value)) return 'must be a whole number';
    if ((schema.minimum !== undefined && value < schema.minimum) || (schema.maximum !== undefined && value > schema.maximum)) {
      return `must be from ${schema.minimum ?? '−∞'} to ${schema.maximum ?? '∞'}`;
    }
  }
  if (schema.enum && !schema.enum.includes(value)) return `must be one of ${schema.enum.map(String).join(', ')}`;
  return undefined;
}

/** Every option of the chosen lane whose value it would refuse, as "Steps: must be from 1 to 50". */
export function optionProblems(choice: LaneChoice, options: Record<string, unknown>): string[] {
  return Object.entries(optionProperties(choice)).flatMap(([name, schema]) => {
    const problem = optionProblem(schema, options[name]);
    return problem ? [`${labelOf(name, schema)}: ${problem}`] : [];
  });
}

/** Options that pick a native aspect ratio and resolution instead of a size (alpha, beta-api). */
export const NATIVE_SIZE_OPTIONS = ['aspectRatio', 'resolution'] as const;

/** Whether the lane offers a native aspect ratio and resolution as well as Size: the composer then offers one or the other. */
export function hasNativeSize(choice: LaneChoice): boolean {
  const properties = optionProperties(choice);
  return choice.controls.includes('size') && NATIVE_SIZE_OPTIONS.every((name) => properties[name] !== undefined);
}
