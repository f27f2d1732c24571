import { PassThrough } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { ServiceError } from '../errors.js';
import { toServiceError } from '../../common/http-errors.js';
import type { ChannelEvent } from '../../common/events/types.js';
import type { JobResult, LaneWarning } from '../api/index.js';
import type { StudioContext } from '../context.js';
import type { ClientPresence } from '../jobs/delivery.js';
import { submitAndFollow } from '../jobs/follow.js';
import type { JobSpec } from '../jobs/running-job.js';
import { base64Of, imagesOf, openaiUsage, resultWarnings, settingsOf } from './answer.js';
import { openaiError } from './errors.js';
import type { OpenAIImageRequest } from './requests.js';

// `stream: true` on /v1: the job followed as the OpenAI SDK's Stream reads
// it. `partial` events → `<prefix>.partial_image` (at most `partial_images` of
// them), its result → one `<prefix>.completed` per image, its error → a data
// line `{ error }` (the SDK throws it as an APIError). Each frame has `event:` and
// `data:` lines. The job is the ordinary one: queued, in history, on /api/events.

/** The event-name prefix of each endpoint, as OpenAI names its stream events. */
export type StreamPrefix = 'image_generation' | 'image_edit';

/** A comment line now and then keeps idle proxies and clients from closing a long wait. */
const HEARTBEAT_MS = 15_000;

const frame = (event: string, data: unknown): string => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/** What the stream needs of the request. */
export interface OpenAIStream {
  readonly ctx: StudioContext;
  readonly reply: FastifyReply;
  readonly client: ClientPresence;
  readonly job: JobSpec;
  readonly request: OpenAIImageRequest;
  readonly prefix: StreamPrefix;
  /** The warnings the planned job records (its partials are reported with them). */
  readonly planned: readonly LaneWarning[];
}

/** Answers the request with the job's events as OpenAI stream events; resolves when the stream is over. */
export async function streamJob({ ctx, reply, client, job, request, prefix, planned }: OpenAIStream): Promise<void> {
  // Gone during planning: the job never starts (as deliver() does for the studio's own streams).
  if (client.gone) throw new ServiceError('JOB_CANCELLED', 'The client disconnected before the job started.');
  const out = new PassThrough();
  const partialsWanted = request.partial_images ?? 0;
  let partialsSent = 0;
  let finished = false;
  const created = () => Math.floor(Date.now() / 1000);

  const finish = () => {
    if (finished) return;
    finished = true;
    clearInterval(heartbeat);
    out.end();
  };
  const failWith = (error: unknown) => {
    if (finished) return;
    const failure = toServiceError(error);
    out.write(frame('error', openaiError(failure.status, failure.toBody().error)));
    finish();
  };
  const complete = async (result: JobResult) => {
    try {
      const { images, usage } = imagesOf(result);
      const warnings = resultWarnings(result);
      for (const { image } of images) {
        const b64 = await base64Of(ctx, image);
        out.write(
          frame(`${prefix}.completed`, {
            type: `${prefix}.completed`,
            b64_json: b64,
            created_at: created(),
            ...settingsOf(request, image, warnings),
            ...(usage ? { usage: openaiUsage(usage) } : {}),
          }),
        );
      }
      finish();
    } catch (error) {
      failWith(error);
    }
  };

  const heartbeat = setInterval(() => out.write(': keep-alive\n\n'), HEARTBEAT_MS).unref();

  // Nobody left to read it: the job is cancelled, as a studio stream's is.
  client.onGone(() => {
    if (!finished) void ctx.jobs.cancel(job.requestId, 'The client closed the event stream.').catch(() => {});
    finish();
  });

  reply.code(200).headers({ 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
  // A first comment sends the headers now: the SDK's call resolves before the first event.
  out.write(': open\n\n');
  void reply.send(out);
  const onEvent = (event: ChannelEvent) => {
    if (finished || event.event !== 'partial' || partialsSent >= partialsWanted || typeof event.b64 !== 'string') return;
    const index = partialsSent++;
    const settings = settingsOf(request, undefined, planned);
    out.write(
      frame(`${prefix}.partial_image`, {
        type: `${prefix}.partial_image`,
        b64_json: event.b64,
        partial_image_index: index,
        created_at: created(),
        ...settings,
        output_format: event.format ?? settings.output_format,
      }),
    );
  };
  try {
    // A batch's partials come from its slots.
    const followed = await submitAndFollow(ctx, job, onEvent, { slots: true });
    void followed.outcome.then(complete, failWith);
  } catch (error) {
    failWith(error);
  }
}
