import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ServiceError } from '../../common/errors.js';
import { REASONING_EFFORTS } from '../catalog/controls.js';
import { MODELS, resolveModel } from '../catalog/models.js';
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

/**
 * The default model is one concept across oauth and api, so it must run on both:
 * the api ids (each maps onto an oauth model) and lang-6-astra.
 */
const SHARED_MODELS = MODELS.filter((spec) => spec.lanes.includes('api') && spec.lanes.includes('oauth')).map((spec) => spec.id);

/** Persisted defaults: one model and one reasoning effort across oauth and api, and a video target. */
export function registerDefaultsRoutes(app: FastifyInstance, ctx: StudioContext): void {
  app.get('/api/defaults', async () => effectiveDefaults(ctx));

  app.put('/api/defaults', async (request) => {
    const parsed = body.safeParse(request.body ?? {});
    if (!parsed.success) throw new ServiceError('INVALID_SETTING', parsed.error.issues[0]?.message, { details: { valid: ['model', 'reasoning', 'video'] } });
    const { model, reasoning, video } = parsed.data;

    if (model !== undefined && !SHARED_MODELS.includes(model)) {
      throw new ServiceError('INVALID_IMAGE_MODEL', `"${model}" cannot be the default of both the oauth and the api lanes.`, { details: { valid: SHARED_MODELS } });
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
