import type { FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError } from '../errors.js';
import { partOf, type AssetSpace, type AssetStore, type BytePart, type ByteRange } from '../media/asset-store.js';
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

/** `bytes=<first>-<last>`, `bytes=<first>-` or `bytes=-<suffix>`: one range. */
const RANGE = /^bytes=(\d*)-(\d*)$/;

/**
 * The one byte range a request asks for (a video element seeking asks for one); undefined for none,
 * several, a malformed one, or one under If-Range (the studio sends no validator to compare): the
 * file is then sent whole, as RFC 9110 lets a server do.
 */
export function requestedRange(request: FastifyRequest): ByteRange | undefined {
  const header = request.headers.range;
  if (typeof header !== 'string' || request.headers['if-range'] !== undefined) return undefined;
  const [, first = '', last = ''] = RANGE.exec(header.trim()) ?? [];
  const start = first === '' ? undefined : Number(first);
  const end = last === '' ? undefined : Number(last);
  if (!Number.isSafeInteger(start ?? 0) || !Number.isSafeInteger(end ?? 0)) return undefined;
  if (start === undefined) return end === undefined ? undefined : { suffix: end };
  if (end !== undefined && end < start) return undefined;
  return end === undefined ? { start } : { start, end };
}

/** Streams one file of a live asset, or the range asked for; the name was validated and the type comes from the record, never the name. */
async function sendFile(
  request: FastifyRequest,
  reply: FastifyReply,
  assets: AssetStore,
  space: AssetSpace,
  filename: string,
  format: AssetFormat,
): Promise<FastifyReply> {
  const range = requestedRange(request);
  // A HEAD answers from what the store knows of the file: nothing is read (from a bucket, a GET would start the whole download).
  if (request.method === 'HEAD') {
    const facts = await assets.stat(space, filename);
    if (!facts) throw notFound(filename);
    const part = range && partOf(range, facts.size);
    if (range && !part) throw outsideOf(filename, facts.size);
    return fileHeaders(reply, format, facts.size, part).send();
  }
  const body = await assets.open(space, filename, range);
  if (!body) throw notFound(filename);
  if ('outside' in body) throw outsideOf(filename, body.size);
  return fileHeaders(reply, format, body.size, body.part).send(body.stream);
}

/** The answer to a range that holds no byte of the file. */
const outsideOf = (filename: string, size: number) =>
  new ServiceError('RANGE_NOT_SATISFIABLE', `${filename} has ${size} bytes; the range asked for holds none of them.`, {
    details: { size },
    headers: { 'content-range': `bytes */${size}`, 'accept-ranges': 'bytes' },
  });

/** The status and headers of a file's answer: the whole file (200) or a part of it (206). */
function fileHeaders(reply: FastifyReply, format: AssetFormat, size: number, part: BytePart | undefined): FastifyReply {
  reply.headers({
    'content-type': mimeOf(format),
    'content-length': String(part ? part.end - part.start + 1 : size),
    'accept-ranges': 'bytes',
    ...(part ? { 'content-range': `bytes ${part.start}-${part.end}/${size}` } : {}),
    'cache-control': CACHE_CONTROL,
    'x-content-type-options': 'nosniff',
    ...(format === 'svg' ? { 'content-security-policy': SVG_POLICY } : {}),
  });
  return reply.code(part ? 206 : 200);
}

/** GET /generated/:filename and /generated/thumbs/:filename: files of live history assets only. */
export const fileRoutes: StudioRoutes = async (app, { ctx }) => {
  // HEAD is declared with GET: Fastify's own HEAD route would run the GET and read the whole file to drop it.
  app.route({
    method: ['GET', 'HEAD'],
    url: '/generated/:filename',
    handler: async (request, reply) => {
      const filename = filenameParam(request.params);
      const row = await ctx.store.assets.find(filename);
      if (!row || row.deleted_at !== null) throw notFound(filename);
      return sendFile(request, reply, ctx.assets, 'generated', filename, row.format);
    },
  });

  app.route({
    method: ['GET', 'HEAD'],
    url: '/generated/thumbs/:filename',
    handler: async (request, reply) => {
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
      return sendFile(request, reply, ctx.assets, 'thumbnails', filename, THUMBNAIL.format);
    },
  });
};
