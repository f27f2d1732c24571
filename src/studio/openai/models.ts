import { ServiceError } from '../errors.js';
import { catalogModels, laneModels } from '../catalog/models.js';
import { LANE_MODULES } from '../catalog/registry.js';
import type { StudioContext } from '../context.js';

// GET /v1/models: the studio's catalog as OpenAI's model list. Every model of
// every lane as `<lane>/<model>` (owned by its lane), then each plain model id
// once (owned by the first lane that offers it): both are valid `model` values.
// The catalog has no creation dates: `created` is 0.

export interface OpenAIModel {
  readonly id: string;
  readonly object: 'model';
  readonly created: number;
  readonly owned_by: string;
}

const model = (id: string, ownedBy: string): OpenAIModel => ({ id, object: 'model', created: 0, owned_by: ownedBy });

/** Every model id /v1 takes, lane-qualified ones first (discovered models included). */
export function openaiModels(ctx: StudioContext): OpenAIModel[] {
  const qualified = LANE_MODULES.flatMap((lane) => laneModels(lane, ctx).map((spec) => model(`${lane.id}/${spec.id}`, lane.id)));
  const plain = catalogModels(ctx).map((entry) => model(entry.id, entry.providers[0]));
  return [...qualified, ...plain];
}

/** GET /v1/models/:id */
export function openaiModel(ctx: StudioContext, id: string): OpenAIModel {
  const found = openaiModels(ctx).find((entry) => entry.id === id);
  if (!found) throw new ServiceError('NOT_FOUND', `Unknown model "${id}": GET /v1/models lists them.`, { details: { model: id } });
  return found;
}
