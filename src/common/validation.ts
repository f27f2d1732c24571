import type { z } from 'zod';
import { ServiceError, type ServiceErrorClass } from './errors.js';
import { issueMessage } from './issue-message.js';

// The one way both servers validate what a request brings (bodies, queries,
// route parameters): a zod schema, and on failure the one error shape naming
// the field, what is wrong, and what would be valid.

export interface ValidationOptions<E extends ServiceErrorClass<never> = typeof ServiceError> {
  /** Code of the answer (default BAD_REQUEST): one of the shared codes, or of the table of `errors`. */
  readonly code?: ConstructorParameters<E>[0];
  /** The server's ServiceError class, for a `code` of its own table. */
  readonly errors?: E;
  /** What is validated, for the message ("query parameter", "message body"). */
  readonly what?: string;
  /** Valid values to name per field, where the schema cannot say (a pattern, a range). */
  readonly hints?: Readonly<Record<string, unknown>>;
}

interface SchemaNode {
  readonly def?: { readonly type?: string; readonly innerType?: SchemaNode; readonly element?: SchemaNode; readonly in?: SchemaNode };
  readonly shape?: Readonly<Record<string, SchemaNode>>;
}

/** The schema inside optional, nullable, default, array and pipe wrappers. */
function unwrap(node: SchemaNode | undefined): SchemaNode | undefined {
  let current = node;
  for (;;) {
    const def = current?.def;
    if (def?.type === 'optional' || def?.type === 'nullable' || def?.type === 'default') current = def.innerType;
    else if (def?.type === 'array') current = def.element;
    else if (def?.type === 'pipe') current = def.in;
    else return current;
  }
}

/** The fields the object schema at `path` knows (for `unknown field` answers). */
function knownKeys(schema: z.ZodType, path: readonly PropertyKey[]): string[] | undefined {
  let current = unwrap(schema as unknown as SchemaNode);
  for (const key of path) {
    if (typeof key !== 'string') continue;
    current = unwrap(current?.shape?.[key]);
  }
  return current?.shape ? Object.keys(current.shape) : undefined;
}

/** Parses `value` with `schema` or throws the answer: BAD_REQUEST (or `code`) with `details.field` and `details.valid`. */
export function parseWith<T, E extends ServiceErrorClass<never> = typeof ServiceError>(
  schema: z.ZodType<T>,
  value: unknown,
  options: ValidationOptions<E> = {},
): T {
  const parsed = schema.safeParse(value ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue.path.map(String).join('.') || undefined;
  const details: Record<string, unknown> = { field };
  if (issue.code === 'invalid_value') details.valid = issue.values;
  else if (issue.code === 'unrecognized_keys') {
    details.unknown = issue.keys;
    details.valid = knownKeys(schema, issue.path);
  } else {
    const leaf = issue.path[issue.path.length - 1];
    const hint = typeof leaf === 'string' ? options.hints?.[leaf] : undefined;
    if (hint !== undefined) details.valid = hint;
  }
  const prefix = options.what ? `${options.what}${field ? ` ${field}` : ''}` : field;
  // In words a person reads (issue-message.ts), not the validator's.
  let message = issueMessage(issue, value ?? {});
  if (issue.code === 'unrecognized_keys' && Array.isArray(details.valid)) message += ` (valid: ${details.valid.join(', ')})`;
  const Errors = (options.errors ?? ServiceError) as ServiceErrorClass<string>;
  throw new Errors(options.code ?? 'BAD_REQUEST', prefix ? `${prefix}: ${message}` : message, { details });
}
