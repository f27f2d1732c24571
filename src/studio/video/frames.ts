import { ServiceError } from '../errors.js';
import type { VideoAnalysis, VideoAnalyzeRequest } from '../api/index.js';
import type { StudioContext } from '../context.js';
import { extractFrame, type FramePosition } from '../media/video/index.js';
import { historyVideoRow, withHistoryVideo } from './history-video.js';
import { videoLanes, videoTarget } from './target.js';

// Frames of generated MP4s: GET /api/video/frame (a PNG: first, last, or at a
// time) and POST /api/video/analyze (the first and last frames described by
// the lane's planner model). Both take history MP4s only; a URL is refused.

/** `first` (default), `last`, or seconds. */
/** A time in seconds as the API takes it: digits, optionally a decimal point and more digits. */
const PLAIN_SECONDS = /^\d{1,9}(\.\d{1,6})?$/;

export function framePosition(at: string | undefined): FramePosition {
  if (at === undefined || at === 'first' || at === 'last') return at ?? 'first';
  // Plain decimal seconds only ("2", "0.25"): "1e-320", "0x10" or "Infinity" are not a time a person writes.
  const seconds = PLAIN_SECONDS.test(at) ? Number(at) : NaN;
  if (!Number.isFinite(seconds))
    throw new ServiceError(
      'VIDEO_FRAME_OUT_OF_RANGE',
      `at must be first, last or a time in plain decimal seconds (e.g. 2.5); got "${at}".`,
      {
        details: { field: 'at', valid: ['first', 'last', '<seconds>'] },
      },
    );
  return seconds;
}

/** The PNG of frames of a history MP4, with the video's duration. */
export async function historyFrames(
  ctx: StudioContext,
  filename: string,
  positions: readonly FramePosition[],
): Promise<{ frames: Buffer[]; durationSeconds: number }> {
  const row = await historyVideoRow(ctx, filename, 'filename');
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

/** POST /api/video/analyze: the lane's planner model describes the first and the last frame. */
export async function analyzeVideo(ctx: StudioContext, body: VideoAnalyzeRequest, signal: AbortSignal): Promise<VideoAnalysis> {
  if (body.url !== undefined)
    throw new ServiceError(
      'VIDEO_REMOTE_UNSUPPORTED',
      'analyze takes generated MP4s of history only (video: <filename>), not remote URLs.',
      { details: { field: 'url' } },
    );
  if (!body.video) throw new ServiceError('BAD_REQUEST', 'video (a history MP4 filename) is required.', { details: { field: 'video' } });
  const { lane } = videoTarget(ctx, body.provider ? { provider: body.provider } : {});
  const describer = lane.video.frames;
  if (!describer) {
    const valid = videoLanes()
      .filter((entry) => entry.video.frames)
      .map((entry) => entry.id);
    throw new ServiceError(
      'VIDEO_PROVIDER_UNSUPPORTED',
      `The ${lane.id} lane does not analyze videos; use provider ${valid.join(' or ')}.`,
      { details: { provider: lane.id, valid } },
    );
  }
  const plannerModel = describer.model(ctx, body.plannerModel);
  const { frames, durationSeconds } = await historyFrames(ctx, body.video, ['first', 'last']);
  const usage = { inputTokens: 0, outputTokens: 0 };
  const describe = async (frame: Buffer, which: 'first' | 'last'): Promise<string> => {
    const answer = await describer.describe(ctx, plannerModel, { bytes: frame, mime: 'image/png' }, which, signal);
    usage.inputTokens += answer.usage.inputTokens;
    usage.outputTokens += answer.usage.outputTokens;
    return answer.text;
  };
  const first = await describe(frames[0], 'first');
  const last = await describe(frames[1], 'last');
  return {
    filename: body.video,
    provider: lane.id,
    plannerModel,
    first: { atSeconds: 0, description: first },
    last: { atSeconds: durationSeconds, description: last },
    usage,
  };
}
