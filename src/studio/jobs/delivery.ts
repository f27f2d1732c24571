import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError } from '../errors.js';
import { streamRequestEvents, wantsEventStream } from '../../common/events/request-stream.js';
import { toServiceError } from '../../common/http-errors.js';
import { GENERATION_TOPIC, type JobResult } from '../api/index.js';
import type { StudioContext } from '../context.js';
import type { JobSpec } from './running-job.js';

// The three ways of delivering one job (DESIGN: "One job path"):
// - sync JSON (default): the answer is the result, or the error;
// - async (`async: true` + requestId): 202 now, events on /api/events;
// - per-request SSE (`Accept: text/event-stream`): this request's events, ending with done/error.
// Errors before this point (validation, credentials, 409) are plain JSON answers;
// on a per-request stream, a refusal in a race after it opened is its own last event.

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
  /** The job to create, with the fingerprint of the client's request. */
  readonly job: JobSpec;
  /**
   * By default a client that goes away cancels its job (nobody is left to receive the answer);
   * `cancelOnDisconnect: false` keeps it running so the result can be picked up from history.
   */
  readonly cancelOnDisconnect: boolean;
}

/** The fields of a body that say how to deliver the job, not what it is: the same job may be asked for either way. */
const DELIVERY_FIELDS = new Set(['async', 'cancelOnDisconnect', 'requestId']);

/** Canonical JSON: object keys sorted, so the same body written in another order is the same body. */
const canonical = (value: unknown): string =>
  Array.isArray(value)
    ? `[${value.map(canonical).join(',')}]`
    : value !== null && typeof value === 'object'
      ? `{${Object.keys(value)
          .sort()
          .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`)
          .join(',')}}`
      : JSON.stringify(value);

/** What identifies a client's request: the route's kind and its body, without the delivery fields. */
export function fingerprintOf(kind: string, body: unknown): string {
  const fields =
    body !== null && typeof body === 'object'
      ? Object.fromEntries(Object.entries(body).filter(([key]) => !DELIVERY_FIELDS.has(key)))
      : body;
  return createHash('sha256')
    .update(canonical({ kind, body: fields }))
    .digest('base64url');
}

/**
 * Submits the job and delivers it the way the request asked. Sync, async and
 * SSE are three ways of delivering the same job: it waits in the engine's
 * queue, runs, publishes its events and records its states. The same
 * requestId with the same body is the same job: it is answered, never run again.
 */
export async function deliver(
  ctx: StudioContext,
  reply: FastifyReply,
  { mode, client, job, cancelOnDisconnect }: Delivery,
): Promise<JobResult | undefined> {
  if (mode !== 'async' && cancelOnDisconnect && client.gone) {
    // Gone during planning: the job never starts (no upstream call, nothing saved, no requestId held).
    throw new ServiceError('JOB_CANCELLED', 'The client disconnected before the job started.');
  }
  const cancel = (why: string) => () => void ctx.jobs.cancel(job.requestId, why).catch(() => {});
  if (mode === 'async') {
    // Errors reach the client as `error` events (and GET /api/jobs/:id); nothing is left to await here.
    await ctx.jobs.submit(job);
    reply.code(202).send({ requestId: job.requestId, status: 'accepted' });
    return undefined;
  }
  if (mode === 'stream') {
    // A requestId taken by another request is refused as plain JSON, before the stream opens.
    await ctx.jobs.checkRequestId(job.requestId, job.fingerprint ?? null);
    // The same request again, its job already ended: this stream says how, and ends.
    const record = await ctx.jobs.get(job.requestId);
    if (record?.finishedAt) {
      const base = { requestId: record.requestId, kind: record.kind };
      if (record.result) ctx.channel.sendEnded(reply, GENERATION_TOPIC, 'done', { ...base, result: record.result });
      else
        ctx.channel.sendEnded(reply, GENERATION_TOPIC, 'error', {
          ...base,
          error: record.error ?? new ServiceError('INTERNAL_ERROR').toBody().error,
        });
      return undefined;
    }
    // Subscribed before the job is submitted, so even `phase: queued` is on the stream.
    // A client following another request's job (the same request again) leaving does not cancel it.
    const streaming = streamRequestEvents(reply, ctx.channel, {
      requestId: job.requestId,
      onClientClose: cancelOnDisconnect && !record ? cancel('The client closed the event stream.') : undefined,
    });
    try {
      await ctx.jobs.submit(job);
    } catch (error) {
      // Refused after the stream opened (another request took the id meanwhile): this stream alone is told.
      ctx.channel.sendEnded(reply, GENERATION_TOPIC, 'error', {
        requestId: job.requestId,
        kind: job.kind,
        error: toServiceError(error).toBody().error,
      });
    }
    await streaming;
    return undefined;
  }
  const submitted = await ctx.jobs.submit(job);
  if (cancelOnDisconnect && !submitted.existing) client.onGone(cancel('The client disconnected before the answer.'));
  return submitted.outcome;
}
