// Bounds on the shape of a JSON document: how deep it nests, how many values
// it holds, how long its strings and keys are. A document is walked with an
// explicit stack, never by recursion, and the walk stops at the first bound
// broken, so a hostile document costs no more than the bound it breaks.
// Every JSON request body is held to JSON_BODY_MAX_DEPTH (http-app.ts), far
// under SQLite's JSON depth limit (1,000), so no stored document can make a
// query over it fail; stored kinds of document add their own tighter bounds.

/** Deepest nesting of a JSON request body (an object or array inside another counts one level). */
export const JSON_BODY_MAX_DEPTH = 64;

export interface JsonBounds {
  /** Deepest nesting: a scalar at the top is depth 0, `{ "a": 1 }` depth 1. */
  readonly maxDepth: number;
  /** Most values in all (objects, arrays and scalars, keys not counted). */
  readonly maxValues?: number;
  /** Longest string value or key, in UTF-16 code units (what JSON.parse gives). */
  readonly maxStringLength?: number;
}

/** The first bound a document breaks: which, its limit, and the path where it broke (at most 8 parts). */
export interface JsonBoundBroken {
  readonly bound: 'depth' | 'values' | 'stringLength';
  readonly max: number;
  readonly path: string;
}

interface Frame {
  readonly value: unknown;
  readonly depth: number;
  readonly path: readonly string[];
}

const pathText = (path: readonly string[]): string => (path.length > 8 ? [...path.slice(0, 8), '…'] : path).join('.');

/** The first bound `value` breaks, or undefined when it keeps them all. Own enumerable keys only (what JSON.stringify writes). */
export function brokenJsonBound(value: unknown, bounds: JsonBounds): JsonBoundBroken | undefined {
  const maxValues = bounds.maxValues ?? Number.POSITIVE_INFINITY;
  const maxString = bounds.maxStringLength ?? Number.POSITIVE_INFINITY;
  const stack: Frame[] = [{ value, depth: 0, path: [] }];
  // Values are counted as they are pushed, so a huge array is refused before its frames are made.
  let values = 1;
  while (stack.length > 0) {
    const { value: current, depth, path } = stack.pop() as Frame;
    if (typeof current === 'string') {
      if (current.length > maxString) return { bound: 'stringLength', max: maxString, path: pathText(path) };
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    if (depth + 1 > bounds.maxDepth) return { bound: 'depth', max: bounds.maxDepth, path: pathText(path) };
    // Paths are kept only while short: a deep document does not pay for copying them.
    const child = (key: string): readonly string[] => (path.length > 8 ? path : [...path, key]);
    const keys = Array.isArray(current) ? undefined : Object.keys(current);
    values += keys ? keys.length : (current as unknown[]).length;
    if (values > maxValues) return { bound: 'values', max: maxValues, path: pathText(path) };
    if (!keys) {
      const list = current as unknown[];
      for (let index = list.length - 1; index >= 0; index -= 1)
        stack.push({ value: list[index], depth: depth + 1, path: child(String(index)) });
      continue;
    }
    for (const key of keys as string[]) {
      if (key.length > maxString) return { bound: 'stringLength', max: maxString, path: pathText(child(key)) };
      stack.push({ value: (current as Record<string, unknown>)[key], depth: depth + 1, path: child(key) });
    }
  }
  return undefined;
}

/** A sentence saying which bound a document broke, for an error message. */
export function jsonBoundMessage(what: string, broken: JsonBoundBroken): string {
  const where = broken.path ? ` (at ${broken.path})` : '';
  if (broken.bound === 'depth') return `${what} nests deeper than ${broken.max} levels${where}.`;
  if (broken.bound === 'values') return `${what} holds more than ${broken.max} values${where}.`;
  return `${what} has a string or key longer than ${broken.max} characters${where}.`;
}
