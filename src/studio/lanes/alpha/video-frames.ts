import { z } from 'zod';
import { lazy } from '../../../common/lazy.js';
import { ServiceError } from '../../errors.js';
import { readJson } from '../../upstream/index.js';
import type { LaneInputImage } from '../types.js';
import type { VideoFrameDescriber } from '../video-model.js';
import type { LaneEnv } from '../env.js';
import { alphaClient, type AlphaLaneId } from './call.js';
import { checkPlanner } from './video-rules.js';

// POST /api/video/analyze on the alpha lanes: the planner model describes a
// frame of a video (one Responses call per frame, no storage upstream).

const ANALYZE_INSTRUCTIONS =
  'You describe one frame of a video. Answer with two or three sentences in English: what is shown, the composition, colours and any motion the frame suggests. No preamble.';

const responseBody = lazy(() =>
  z.looseObject({
    output: z.array(
      z.looseObject({ type: z.string(), content: z.array(z.looseObject({ type: z.string(), text: z.string().optional() })).optional() }),
    ),
    usage: z.looseObject({ input_tokens: z.number().optional(), output_tokens: z.number().optional() }).nullish(),
  }),
);

/** The frame describer of an alpha lane; `planner` is its planner setting. */
export function alphaFrameDescriber(lane: AlphaLaneId, planner: (ctx: LaneEnv) => string): VideoFrameDescriber {
  return {
    model: (ctx, asked) => checkPlanner(asked ?? planner(ctx)),
    async describe(ctx: LaneEnv, model: string, frame: LaneInputImage, which: 'first' | 'last', signal: AbortSignal) {
      const client = await alphaClient(ctx, lane, signal);
      const answer = await client.step('planner').send(
        '/responses',
        JSON.stringify({
          model,
          instructions: ANALYZE_INSTRUCTIONS,
          input: [
            {
              role: 'user',
              content: [
                { type: 'input_text', text: `The ${which} frame of the video.` },
                { type: 'input_image', image_url: `data:${frame.mime};base64,${frame.bytes.toString('base64')}` },
              ],
            },
          ],
          store: false,
          stream: false,
        }),
        (response) => readJson(lane, response, responseBody, 8 * 1024 * 1024),
      );
      const text = answer.output
        .filter((item) => item.type === 'message')
        .flatMap((item) => item.content ?? [])
        .filter((part) => part.type === 'output_text')
        .map((part) => part.text ?? '')
        .join('')
        .trim();
      if (!text)
        throw new ServiceError('UPSTREAM_FAILED', `The ${lane} planner answered without a description of the ${which} frame.`, {
          details: { lane, step: 'planner', retryable: true },
        });
      return { text, usage: { inputTokens: answer.usage?.input_tokens ?? 0, outputTokens: answer.usage?.output_tokens ?? 0 } };
    },
  };
}
