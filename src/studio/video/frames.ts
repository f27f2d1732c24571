import { z } from 'zod';
import { ServiceError } from '../errors.js';
import type { VideoAnalysis, VideoAnalyzeRequest } from '../api/index.js';
import type { StudioContext } from '../context.js';
import { alphaClient } from '../lanes/alpha/call.js';
import { extractFrame, type FramePosition } from '../media/video/index.js';
import { readJson } from '../upstream/index.js';
import { historyVideoRow, withHistoryVideo } from './history-video.js';
import { videoTarget } from './target.js';

// Frames of generated MP4s: GET /api/video/frame (a PNG: first, last, or at a
// time) and POST /api/video/analyze (the first and last frames described by
// the planner model). Both take history MP4s only; a URL is refused.

/** `first` (default), `last`, or seconds. */
export function framePosition(at: string | undefined): FramePosition {
  if (at === undefined || at === 'first' || at === 'last') return at ?? 'first';
  const seconds = Number(at);
  if (at.trim() === '' || !Number.isFinite(seconds) || seconds < 0) throw new ServiceError('VIDEO_FRAME_OUT_OF_RANGE', `at must be first, last or a time in seconds; got "${at}".`, { details: { field: 'at', valid: ['first', 'last', '<seconds>'] } });
  return seconds;
}

/** The PNG of frames of a history MP4, with the video's duration. */
export async function historyFrames(ctx: StudioContext, filename: string, positions: readonly FramePosition[]): Promise<{ frames: Buffer[]; durationSeconds: number }> {
  const row = historyVideoRow(ctx, filename, 'filename');
  return withHistoryVideo(
    ctx,
    row.filename,
    async (file, dir, durationSeconds) => {
      const frames: Buffer[] = [];
      for (const position of positions) frames.push(await extractFrame(file, dir, position, durationSeconds, { env: ctx.env }));
      return { frames, durationSeconds };
    },
    'filename',
  );
}

const ANALYZE_INSTRUCTIONS =
  'You describe one frame of a video. Answer with two or three sentences in English: what is shown, the composition, colours and any motion the frame suggests. No preamble.';

const responseBody = z.looseObject({
  output: z.array(z.looseObject({ type: z.string(), content: z.array(z.looseObject({ type: z.string(), text: z.string().optional() })).optional() })),
  usage: z.looseObject({ input_tokens: z.number().optional(), output_tokens: z.number().optional() }).nullish(),
});

/** POST /api/video/analyze: the planner model describes the first and the last frame. */
export async function analyzeVideo(ctx: StudioContext, body: VideoAnalyzeRequest, signal: AbortSignal): Promise<VideoAnalysis> {
  if (body.url !== undefined) throw new ServiceError('VIDEO_REMOTE_UNSUPPORTED', 'analyze takes generated MP4s of history only (video: <filename>), not remote URLs.', { details: { field: 'url' } });
  if (!body.video) throw new ServiceError('BAD_REQUEST', 'video (a history MP4 filename) is required.', { details: { field: 'video' } });
  const target = videoTarget(ctx, { ...(body.provider ? { provider: body.provider } : {}), ...(body.plannerModel ? { plannerModel: body.plannerModel } : {}) });
  const { frames, durationSeconds } = await historyFrames(ctx, body.video, ['first', 'last']);
  const client = await alphaClient(ctx, target.lane.id, signal);
  const usage = { inputTokens: 0, outputTokens: 0 };
  const describe = async (frame: Buffer, which: string): Promise<string> => {
    const answer = await client.step('planner').send(
      '/responses',
      JSON.stringify({
        model: target.plannerModel,
        instructions: ANALYZE_INSTRUCTIONS,
        input: [{ role: 'user', content: [{ type: 'input_text', text: `The ${which} frame of the video.` }, { type: 'input_image', image_url: `data:image/png;base64,${frame.toString('base64')}` }] }],
        store: false,
        stream: false,
      }),
      (response) => readJson(target.lane.id, response, responseBody, 8 * 1024 * 1024),
    );
    usage.inputTokens += answer.usage?.input_tokens ?? 0;
    usage.outputTokens += answer.usage?.output_tokens ?? 0;
    const text = answer.output.filter((item) => item.type === 'message').flatMap((item) => item.content ?? []).filter((part) => part.type === 'output_text').map((part) => part.text ?? '').join('').trim();
    if (!text) throw new ServiceError('UPSTREAM_FAILED', `The ${target.lane.id} planner answered without a description of the ${which} frame.`, { details: { lane: target.lane.id, step: 'planner', retryable: true } });
    return text;
  };
  const first = await describe(frames[0], 'first');
  const last = await describe(frames[1], 'last');
  return { filename: body.video, provider: target.lane.id, plannerModel: target.plannerModel, first: { atSeconds: 0, description: first }, last: { atSeconds: durationSeconds, description: last }, usage };
}
