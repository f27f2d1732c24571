import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { JobKind } from '../api/index.js';
import type { StudioContext } from '../context.js';
import { deliver, deliveryMode, fingerprintOf, watchClient } from './delivery.js';
import type { JobSpec } from './running-job.js';

// The one entry of every route that creates a job: watch the client, parse,
// plan (everything checked before the job is accepted), then deliver the way
// the client asked (sync, async 202, per-request SSE). A new kind of job
// (video, an MCP task, an agent turn) is a parser and a planner, not a copy
// of this template.

/** What every job-creating request may say about its delivery and its place in the queue. */
export interface DeliveryFields {
  readonly async?: boolean;
  readonly requestId?: string;
  /** false: the job keeps running when the client goes away, and its result lands in history. */
  readonly cancelOnDisconnect?: boolean;
  readonly priority?: number;
}

export interface JobRoute<Input extends DeliveryFields, K extends JobKind> {
  readonly url: string;
  /** The client's request (its body, or its query for a route with an empty body), parsed by the route's schema. */
  parse(request: FastifyRequest): Input;
  /** Validates and resolves the job; its errors are plain JSON answers, whatever delivery was asked. */
  plan(ctx: StudioContext, input: Input, requestId: string): Promise<JobSpec<K>>;
  /** The status of the synchronous answer: 201 when the job creates a resource (default 200). */
  readonly syncStatus?: 200 | 201;
  /**
   * Called once delivery is over, the job accepted or refused (a sync one: after its answer). A plan
   * that records something of its own before its job exists (an agent turn's item) removes it here
   * when the job was never accepted (refused by the engine, the client gone during planning).
   */
  delivered?(ctx: StudioContext, requestId: string): Promise<void>;
}

/** Registers `POST route.url` as a job-creating route. */
export function addJobRoute<Input extends DeliveryFields, K extends JobKind>(
  app: FastifyInstance,
  ctx: StudioContext,
  route: JobRoute<Input, K>,
): void {
  app.post(route.url, async (request, reply) => {
    const client = watchClient(request, reply);
    const input = route.parse(request);
    const mode = deliveryMode(request, input);
    const requestId = input.requestId ?? randomUUID();
    const planned = await route.plan(ctx, input, requestId);
    const job: JobSpec<K> = {
      ...planned,
      ...(input.priority !== undefined ? { priority: input.priority } : {}),
      // The same requestId with the same request (its delivery fields aside) is the same job.
      fingerprint: fingerprintOf(planned.kind, input),
    };
    let answer;
    try {
      answer = await deliver(ctx, reply, { mode, client, job, cancelOnDisconnect: input.cancelOnDisconnect !== false });
    } finally {
      await route.delivered?.(ctx, requestId);
    }
    // Async and SSE deliveries have answered; a sync one answers the result.
    if (answer === undefined) return reply;
    return reply.code(route.syncStatus ?? 200).send(answer);
  });
}
