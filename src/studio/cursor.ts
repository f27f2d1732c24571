import type { z } from 'zod';
import { ServiceError } from './errors.js';

// Page cursors of the studio's listings: opaque to clients (base64url JSON),
// each tagged with its listing (`m`) so one listing's cursor is refused by
// another instead of being misread.

export const encodeCursor = <T extends { readonly m: string }>(value: T): string =>
  Buffer.from(JSON.stringify(value)).toString('base64url');

/** The cursor's position, or 400 BAD_REQUEST (`details.field: "cursor"`) when it is not one of this listing's. */
export function decodeCursor<T>(cursor: string, schema: z.ZodType<T>): T {
  try {
    return schema.parse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
  } catch {
    throw new ServiceError('BAD_REQUEST', 'The cursor is not valid for this listing; start again without one.', {
      details: { field: 'cursor' },
    });
  }
}
