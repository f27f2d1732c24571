import type { LaneModels, ModelSpec } from './types.js';
import type { VideoModel } from './video-model.js';

// A lane's video models are declared once, on its VideoModel; its model list
// (GET /api/capabilities `models`, `svc models`, the saved video target) shows
// them beside its image models, with the video default and aliases.

/** The lane's model list with its video models added (an id already listed is kept as declared). */
export function withVideoModels(models: LaneModels, video: Pick<VideoModel, 'models' | 'defaultModel' | 'aliases'>): LaneModels {
  const listed = new Set(models.list.map((model) => model.id));
  const specs: ModelSpec[] = video.models
    .filter((model) => !listed.has(model.id))
    .map((model) => ({
      id: model.id,
      kind: 'video',
      ...(model.label ? { label: model.label } : {}),
      description: model.description,
      ...(model.upstreamId ? { upstreamId: model.upstreamId } : {}),
      ...(model.options ? { options: model.options } : {}),
    }));
  return {
    ...models,
    list: [...models.list, ...specs],
    defaultVideo: video.defaultModel,
    ...(models.aliases || video.aliases ? { aliases: { ...models.aliases, ...video.aliases } } : {}),
  };
}
