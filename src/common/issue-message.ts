import { z } from 'zod';
import { lazy } from './lazy.js';

// Validator issues in words a person reads, in one place for every route's 400
// (bodies, queries, lane options, tracer parameters): "prompt: is required",
// "n: must be at most 8", never zod's "Too small: expected string to have
// >=1 characters". A message a schema wrote itself (a custom refinement, an
// `error` on a bound: "from 1 to 50") is kept: only zod's own is replaced.

const ZOD_MESSAGES = lazy(() => z.locales.en());

/** How zod's English messages begin (the received type they name is not kept on the issue, so they are matched by their start too). */
const BUILT_IN_START = /^(Invalid |Too (big|small):|Unrecognized keys?:)/;

/** Whether the issue carries zod's built-in message (not one the schema set). */
function builtIn(issue: z.core.$ZodIssue): boolean {
  const said = ZOD_MESSAGES.localeError(issue as never);
  return issue.message === (typeof said === 'string' ? said : said?.message) || BUILT_IN_START.test(issue.message);
}

/** "1 item", "3 items". */
export const plural = (count: number, noun: string, many = `${noun}s`): string => `${count} ${count === 1 ? noun : many}`;

/** The value at `path` inside `root`, when it can be followed. */
function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let current = root;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

const describeType = (value: unknown): string =>
  value === null
    ? 'null'
    : Array.isArray(value)
      ? 'a list'
      : typeof value === 'object'
        ? 'an object'
        : typeof value === 'string'
          ? 'text'
          : typeof value;

const EXPECTED: Readonly<Record<string, string>> = {
  string: 'text',
  number: 'a number',
  int: 'a whole number',
  boolean: 'a boolean (true or false)',
  array: 'a list',
  object: 'an object',
  bigint: 'a whole number',
};

/** Size words of a too_small / too_big issue by what was measured. */
function bound(origin: string, limit: number | bigint, below: boolean, inclusive: boolean): string {
  const count = Number(limit);
  const word = below ? (inclusive ? 'at least' : 'more than') : inclusive ? 'at most' : 'less than';
  switch (origin) {
    case 'string':
      return below && count === 1 && inclusive ? 'must not be empty' : `must be ${word} ${plural(count, 'character')} long`;
    case 'array':
    case 'set':
      return below && count === 1 && inclusive ? 'must not be empty' : `must have ${word} ${plural(count, 'item')}`;
    case 'file':
      return `must be ${word} ${plural(count, 'byte')}`;
    default:
      return `must be ${word} ${String(limit)}`;
  }
}

/** One issue as words (without the field, which the caller puts before it). */
export function issueMessage(issue: z.core.$ZodIssue, input?: unknown): string {
  if (issue.code !== 'invalid_value' && !builtIn(issue)) return issue.message;
  switch (issue.code) {
    case 'invalid_type': {
      const got = valueAt(input, issue.path);
      if (got === undefined) return 'is required';
      return `must be ${EXPECTED[issue.expected] ?? issue.expected}, not ${describeType(got)}`;
    }
    case 'too_small':
      return bound(issue.origin, issue.minimum as number | bigint, true, issue.inclusive !== false);
    case 'too_big':
      return bound(issue.origin, issue.maximum as number | bigint, false, issue.inclusive !== false);
    case 'invalid_value':
      return `must be one of ${issue.values.map(String).join(', ')}`;
    case 'not_multiple_of':
      return `must be a multiple of ${String(issue.divisor)}`;
    case 'unrecognized_keys':
      return `${issue.keys.length === 1 ? 'unknown field' : 'unknown fields'} ${issue.keys.join(', ')}`;
    case 'invalid_format':
      return issue.format === 'regex' && 'pattern' in issue
        ? `has the wrong form (it must match ${String(issue.pattern)})`
        : `must be a valid ${issue.format}`;
    case 'invalid_union':
      return 'is not any of the accepted forms';
    case 'invalid_key':
    case 'invalid_element':
      return 'holds a value that is not valid';
    default:
      return issue.message;
  }
}
