import type { z } from 'zod';
import { ServiceError } from '../../common/errors.js';

/** Parses a request part with a zod schema; failures are BAD_REQUEST with the issues as details. */
export function parseWith<T extends z.ZodType>(schema: T, value: unknown, what: string): z.infer<T> {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
  throw new ServiceError('BAD_REQUEST', `Invalid ${what}: ${issues.map((issue) => `${issue.path || '(root)'} ${issue.message}`).join('; ')}`, {
    details: { issues },
  });
}
