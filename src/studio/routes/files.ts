import type { FastifyReply } from 'fastify';
import { ServiceError } from '../errors.js';
import type { AssetSpace, AssetStore } from '../media/asset-store.js';
import { filenameParam } from '../media/filename.js';
import { mimeOf, type AssetFormat } from '../media/image-type.js';
import { THUMBNAIL } from '../media/thumbnail.js';
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
async function sendFile(
  reply: FastifyReply,
  assets: AssetStore,
  space: AssetSpace,
  filename: string,
  format: AssetFormat,
): Promise<FastifyReply> {
  const body = await assets.open(space, filename);
  if (!body) throw notFound(filename);
  reply.headers({
    'content-type': mimeOf(format),
    'content-length': String(body.size),
    'cache-control': CACHE_CONTROL,
    'x-content-type-options': 'nosniff',
    ...(format === 'svg' ? { 'content-security-policy': SVG_POLICY } : {}),
  });
  return reply.send(body.stream);
}

/** GET /generated/:filename and /generated/thumbs/:filename: files of live history assets only. */
export const fileRoutes: StudioRoutes = async (app, { ctx }) => {
  app.get('/generated/:filename', async (request, reply) => {
    const filename = filenameParam(request.params);
    const row = await ctx.store.assets.find(filename);
    if (!row || row.deleted_at !== null) throw notFound(filename);
    return sendFile(reply, ctx.assets, 'generated', filename, row.format);
  });

  app.get('/generated/thumbs/:filename', async (request, reply) => {
    const filename = filenameParam(request.params);
    let row = await ctx.store.assets.findLiveByThumbnail(filename);
    // Right after a generation the thumbnail is still being made: wait for it (bounded) rather than 404.
    const pending = row?.thumbnail_state === 'pending' ? ctx.derived.pending(row.filename) : undefined;
    if (pending) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([pending, new Promise<void>((resolve) => (timer = setTimeout(resolve, THUMBNAIL_WAIT_MS)))]);
      clearTimeout(timer);
      row = await ctx.store.assets.findLiveByThumbnail(filename);
    }
    if (!row || row.thumbnail_state !== 'ready') throw notFound(filename);
    return sendFile(reply, ctx.assets, 'thumbnails', filename, THUMBNAIL.format);
  });
};
