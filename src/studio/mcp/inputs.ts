import { ServiceError } from '../errors.js';
import { mimeOf } from '../media/image-type.js';
import { findAsset } from '../store/assets.js';
import type { StudioContext } from '../context.js';

// Gallery files as inputs of an MCP job (§3: the body names them by
// filename): checked when the job is planned, read when they are uploaded.

/** Largest input the servers' upload flows take (§2.1: ≤100 MiB). */
export const MCP_INPUT_MAX_BYTES = 100 * 1024 * 1024;

/** The history asset of `filename` (live, not deleted), or REFERENCE_NOT_FOUND naming the field. */
export function galleryAsset(ctx: StudioContext, filename: string, field: string) {
  const row = findAsset(ctx.db, filename);
  if (!row || row.deleted_at) throw new ServiceError('REFERENCE_NOT_FOUND', `${field}: ${filename} is not in history.`, { details: { field, filename } });
  return row;
}

export async function readInputFile(ctx: StudioContext, filename: string): Promise<{ filename: string; bytes: Buffer; mime: string }> {
  const row = galleryAsset(ctx, filename, 'inputs');
  const bytes = await ctx.assets.read('generated', filename, { maxBytes: MCP_INPUT_MAX_BYTES });
  if (!(bytes instanceof Buffer)) throw new ServiceError('MCP_UPLOAD_FAILED', `The input ${filename} cannot be read (missing, or over ${MCP_INPUT_MAX_BYTES} bytes).`, { details: { filename, retryable: false } });
  return { filename, bytes, mime: mimeOf(row.format) };
}
