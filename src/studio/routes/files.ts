import { open } from 'node:fs/promises';
import type { FastifyReply } from 'fastify';
import { ServiceError } from '../../common/errors.js';
import { filenameParam, pathInside } from '../media/filename.js';
import { mimeOf, type AssetFormat } from '../media/image-type.js';
import { THUMBNAIL } from '../media/thumbnail.js';
import { findAsset, findLiveByThumbnail } from '../store/assets.js';
import type { StudioRoutes } from './plugin.js';

/** Names are unique and files never change, so caches may keep them for good. */
const CACHE_CONTROL = 'private, max-age=31536000, immutable';

/** How long a thumbnail request waits for a thumbnail still being made. */
const THUMBNAIL_WAIT_MS = 10_000;

const notFound = (filename: string) => new ServiceError('NOT_FOUND', `No file ${filename}.`);

/**
 * An SVG is a document: opened on its own it must not run anything or reach
 * anywhere (the studio also checks what it saves; this is the second wall).
 */
const SVG_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox";

/** Streams one file of a live asset; the name was validated and the type comes from the record, never the name. */
async function sendFile(reply: FastifyReply, dir: string, filename: string, format: AssetFormat): Promise<FastifyReply> {
  const path = pathInside(dir, filename);
  let handle;
  try {
    handle = await open(path, 'r');
  } catch {
    throw notFound(filename);
  }
  try {
    const { size } = await handle.stat();
    reply.headers({
      'content-type': mimeOf(format),
      'content-length': String(size),
      'cache-control': CACHE_CONTROL,
      'x-content-type-options': 'nosniff',
      ...(format === 'svg' ? { 'content-security-policy': SVG_POLICY } : {}),
    });
    // A bounded stream ends right after its last byte instead of one more read later, so the
    // response finishes before a client that counted Content-Length bytes moves on (and a
    // closing server finds the connection idle).
    if (size > 0) return reply.send(handle.createReadStream({ start: 0, end: size - 1 }));
  } catch (error) {
    await handle.close();
    throw error;
  }
  await handle.close();
  return reply.send(Buffer.alloc(0));
}

/** GET /generated/:filename and /generated/thumbs/:filename: files of live history assets only. */
export const fileRoutes: StudioRoutes = async (app, { ctx }) => {
  app.get('/generated/:filename', async (request, reply) => {
    const filename = filenameParam(request.params);
    const row = findAsset(ctx.db, filename);
    if (!row || row.deleted_at !== null) throw notFound(filename);
    return sendFile(reply, ctx.paths.generatedDir, filename, row.format);
  });

  app.get('/generated/thumbs/:filename', async (request, reply) => {
    const filename = filenameParam(request.params);
    let row = findLiveByThumbnail(ctx.db, filename);
    // Right after a generation the thumbnail is still being made: wait for it (bounded) rather than 404.
    const pending = row?.thumbnail_state === 'pending' ? ctx.derived.pending(row.filename) : undefined;
    if (pending) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([pending, new Promise<void>((resolve) => (timer = setTimeout(resolve, THUMBNAIL_WAIT_MS)))]);
      clearTimeout(timer);
      row = findLiveByThumbnail(ctx.db, filename);
    }
    if (!row || row.thumbnail_state !== 'ready') throw notFound(filename);
    return sendFile(reply, ctx.paths.thumbnailsDir, filename, THUMBNAIL.format);
  });
};
