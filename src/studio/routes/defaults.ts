import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ServiceError } from '../../common/errors.js';
import { REASONING_EFFORTS } from '../catalog/controls.js';
import { MODELS, findModel, resolveModel } from '../catalog/models.js';
import { isLaneId, type ProviderLaneId } from '../catalog/lanes.js';
import type { StudioContext } from '../context.js';
import { effectiveDefaults } from '../defaults.js';

const body = z
  .object({
    model: z.string().min(1).optional(),
    reasoning: z.string().optional(),
    /** `<lane>/<model>` */
    video: z.string().optional(),
  })
  .strict();

/** Persisted defaults: one model and one reasoning effort across oauth and api, and a video target. */
export function registerDefaultsRoutes(app: FastifyInstance, ctx: StudioContext): void {
  app.get('/api/defaults', async () => effectiveDefaults(ctx));

  app.put('/api/defaults', async (request) => {
    const parsed = body.safeParse(request.body ?? {});
    if (!parsed.success) throw new ServiceError('INVALID_SETTING', parsed.error.issues[0]?.message, { details: { valid: ['model', 'reasoning', 'video'] } });
    const { model, reasoning, video } = parsed.data;

    if (model !== undefined) {
      const spec = findModel(model);
      if (!spec || spec.kind !== 'chat') {
        // Both lanes share the setting, so any chat model is valid.
        const valid = MODELS.filter((candidate) => candidate.kind === 'chat').map((candidate) => candidate.id);
        throw new ServiceError('INVALID_IMAGE_MODEL', `"${model}" is not a model of the oauth or api lanes.`, { details: { valid } });
      }
    }
    if (reasoning !== undefined && !(REASONING_EFFORTS as readonly string[]).includes(reasoning)) {
      throw new ServiceError('INVALID_SETTING', `Reasoning effort must be one of ${REASONING_EFFORTS.join(', ')}.`, { details: { valid: REASONING_EFFORTS } });
    }
    let videoTarget: { lane: ProviderLaneId; model: string } | undefined;
    if (video !== undefined) {
      const [lane, videoModel] = video.split('/');
      if (!isLaneId(lane) || lane === 'auto' || !videoModel) {
        throw new ServiceError('INVALID_SETTING', 'The video target is `<lane>/<model>`, e.g. alpha/alpha-video-1.5.');
      }
      if (lane !== 'alpha' && lane !== 'alpha-api') {
        throw new ServiceError('VIDEO_PROVIDER_UNSUPPORTED', undefined, { details: { valid: ['alpha', 'alpha-api'] } });
      }
      videoTarget = { lane, model: resolveModel(lane, videoModel, 'video').id };
    }

    ctx.settings.update((draft) => {
      draft.defaults ??= {};
      for (const lane of ['oauth', 'api'] as const) {
        if (model !== undefined || reasoning !== undefined) {
          draft.defaults[lane] = {
            ...draft.defaults[lane],
            ...(model !== undefined ? { model } : {}),
            ...(reasoning !== undefined ? { reasoning: reasoning as (typeof REASONING_EFFORTS)[number] } : {}),
          };
        }
      }
      if (videoTarget) draft.defaults.video = videoTarget;
    });
    return effectiveDefaults(ctx);
  });
}
