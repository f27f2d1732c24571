import type { FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError } from '../../common/errors.js';
import { streamRequestEvents, wantsEventStream } from '../../common/events/request-stream.js';
import type { StudioContext } from '../context.js';
import type { RunningJob } from './registry.js';
import { runJob } from './runner.js';

// The three ways of delivering one job (DESIGN: "One job path"):
// - sync JSON (default): the answer is the result, or the error;
// - async (`async: true` + requestId): 202 now, events on /api/events;
// - per-request SSE (`Accept: text/event-stream`): this request's events, ending with done/error.
// Errors before this point (validation, credentials, 409) are plain JSON answers.

export type DeliveryMode = 'sync' | 'async' | 'stream';

/** How this request wants its answer; async needs a client-chosen requestId. */
export function deliveryMode(request: FastifyRequest, body: { async?: boolean; requestId?: string }): DeliveryMode {
  if (body.async) {
    if (!body.requestId) throw new ServiceError('REQUEST_ID_REQUIRED', 'async: true needs a requestId to follow the job on /api/events.');
    return 'async';
  }
  return wantsEventStream(request) ? 'stream' : 'sync';
}

export async function deliver<T>(
  ctx: StudioContext,
  request: FastifyRequest & { body: unknown },
  reply: FastifyReply,
  mode: DeliveryMode,
  job: RunningJob,
  work: (job: RunningJob) => Promise<T>,
): Promise<T | FastifyReply> {
  // By default a client that goes away cancels its job (nobody is left to receive the answer);
  // `cancelOnDisconnect: false` keeps it running so the result can be picked up from history.
  const cancelOnDisconnect = (request.body as { cancelOnDisconnect?: boolean } | undefined)?.cancelOnDisconnect !== false;
  if (mode === 'async') {
    // Errors reach the client as `error` events; nothing is left to await here.
    runJob(ctx, job, work).catch(() => {});
    return reply.code(202).send({ requestId: job.requestId, status: 'accepted' });
  }
  if (mode === 'stream') {
    // Subscribed before the job starts, so even `phase: queued` is on the stream.
    const streaming = streamRequestEvents(reply, ctx.events, {
      requestId: job.requestId,
      onClientClose: cancelOnDisconnect ? () => job.cancel('The client closed the event stream.') : undefined,
    });
    runJob(ctx, job, work).catch(() => {});
    await streaming;
    return reply;
  }
  if (cancelOnDisconnect) {
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) job.cancel('The client disconnected before the answer.');
    });
  }
  return runJob(ctx, job, work);
}
