import type { FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError } from '../../common/errors.js';
import { streamRequestEvents, wantsEventStream } from '../../common/events/request-stream.js';
import type { JobResult } from '../api/index.js';
import type { StudioContext } from '../context.js';
import type { RunningJob, JobSpec } from './running-job.js';

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

/** Whether the client of a request is still connected; watched from route entry on. */
export interface ClientPresence {
  /** True once the connection closed before the answer was complete. */
  readonly gone: boolean;
  /** Runs `listener` when the client goes (at once if it already has). */
  onGone(listener: () => void): void;
}

/**
 * Starts watching the client's connection. Call it first thing in a route:
 * planning (reference decoding, lane status) awaits, and a client that leaves
 * meanwhile must still be noticed, or its job would start with nobody to answer.
 */
export function watchClient(request: FastifyRequest, reply: FastifyReply): ClientPresence {
  let gone = false;
  const listeners: Array<() => void> = [];
  const leave = () => {
    if (gone) return;
    gone = true;
    for (const listener of listeners.splice(0)) listener();
  };
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) leave();
  });
  // A connection that closed before the route ran has already emitted its `close`.
  if (reply.raw.destroyed || request.raw.socket?.destroyed) leave();
  return {
    get gone() {
      return gone;
    },
    onGone(listener) {
      if (gone) listener();
      else listeners.push(listener);
    },
  };
}

export interface Delivery {
  readonly mode: DeliveryMode;
  /** From `watchClient` at route entry. */
  readonly client: ClientPresence;
  /** The job to create; its requestId is claimed only once the job will really start. */
  readonly job: JobSpec;
}

/**
 * Creates the job and delivers it the way the request asked. Sync, async and
 * SSE are three ways of delivering the same job: all run through
 * `ctx.jobs.run`, which publishes its events and records its states.
 */
export async function deliver(ctx: StudioContext, request: FastifyRequest & { body: unknown }, reply: FastifyReply, { mode, client, job: spec }: Delivery): Promise<JobResult | FastifyReply> {
  // By default a client that goes away cancels its job (nobody is left to receive the answer);
  // `cancelOnDisconnect: false` keeps it running so the result can be picked up from history.
  const cancelOnDisconnect = (request.body as { cancelOnDisconnect?: boolean } | undefined)?.cancelOnDisconnect !== false;
  if (mode !== 'async' && cancelOnDisconnect && client.gone) {
    // Gone during planning: the job never starts (no upstream call, nothing saved, no requestId held).
    throw new ServiceError('JOB_CANCELLED', 'The client disconnected before the job started.');
  }
  const job: RunningJob = ctx.jobs.create(spec);
  if (mode === 'async') {
    // Errors reach the client as `error` events (and GET /api/jobs/:id); nothing is left to await here.
    ctx.jobs.run(job).catch(() => {});
    return reply.code(202).send({ requestId: job.requestId, status: 'accepted' });
  }
  if (mode === 'stream') {
    // Subscribed before the job starts, so even `phase: queued` is on the stream.
    const streaming = streamRequestEvents(reply, ctx.events, {
      requestId: job.requestId,
      onClientClose: cancelOnDisconnect ? () => job.cancel('The client closed the event stream.') : undefined,
    });
    ctx.jobs.run(job).catch(() => {});
    await streaming;
    return reply;
  }
  if (cancelOnDisconnect) client.onGone(() => job.cancel('The client disconnected before the answer.'));
  return ctx.jobs.run(job);
}
