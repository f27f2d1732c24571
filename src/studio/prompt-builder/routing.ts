import { ServiceError } from '../errors.js';
import type { PromptBuilderBackend, PromptBuilderChoice } from '../api/index.js';
import { laneStatus } from '../catalog/status.js';
import type { StudioContext } from '../context.js';
import { autoOrder, backendModels, builderSettings, checkModel } from './config.js';

// Which backend answers (spec: "Prompt builder backend"), independent of the
// image lane: a named backend pins routing (unavailable: a typed error naming
// it and why, never a fallback); `auto` takes the first ready text lane in
// the spec's order (the registry's TEXT_LANES) that offers the model, when one is named.

export interface RoutedBackend {
  readonly requested: PromptBuilderChoice;
  readonly backend: PromptBuilderBackend;
  readonly model: string;
}

/**
 * The backend and model for one call: the call's own choice, else the
 * settings. A model saved for another backend than the one asked for does not
 * follow it there (models are scoped to their backend): that backend's default runs.
 */
export async function routeBackend(
  ctx: StudioContext,
  asked: { backend?: PromptBuilderChoice; model?: string } = {},
): Promise<RoutedBackend> {
  const settings = builderSettings(ctx);
  const requested = asked.backend ?? settings.backend;
  const model = asked.model ?? (requested === settings.backend ? (settings.model ?? undefined) : undefined);
  checkModel(requested, model);
  if (requested !== 'auto') {
    const status = await laneStatus(ctx, requested);
    if (status.state !== 'ready') {
      throw new ServiceError(
        'PROMPT_BUILDER_BACKEND_UNAVAILABLE',
        `The ${requested} prompt builder backend is not available: ${status.reason}`,
        {
          details: { backend: requested, state: status.state, reason: status.reason },
        },
      );
    }
    return { requested, backend: requested, model: model ?? backendModels(requested).defaultModel };
  }
  const order = autoOrder();
  const skipped: Partial<Record<PromptBuilderBackend, string>> = {};
  for (const backend of order) {
    const { models, defaultModel } = backendModels(backend);
    if (model !== undefined && !models.includes(model)) {
      skipped[backend] = `does not offer ${model}`;
      continue;
    }
    const status = await laneStatus(ctx, backend);
    if (status.state === 'ready') return { requested, backend, model: model ?? defaultModel };
    skipped[backend] = status.reason;
  }
  throw new ServiceError('PROMPT_BUILDER_NO_BACKEND', `No prompt builder backend is ready (auto tries ${order.join(', ')}).`, {
    details: { autoOrder: order, backends: skipped },
  });
}
