import { z } from 'zod';
import { ServiceError } from '../errors.js';
import type { LaneId } from '../api/index.js';
import type { StudioContext } from '../context.js';
import type { LaneModule, ModelSpec, ResolvedModel } from '../lanes/types.js';
import { LANE_MODULES } from './registry.js';

// Model resolution for every lane, from the lane's own model list: aliases,
// the default, the lane's compatibility mapping (`runsAs`).

const canonical = (lane: LaneModule, id: string): string => lane.models.aliases?.[id] ?? id;

/** A lane's models: its declared list, and with a context the ones it discovers at run time (flow's workflows). */
export const laneModels = (lane: LaneModule, ctx?: StudioContext): readonly ModelSpec[] =>
  ctx && lane.models.discover ? [...lane.models.list, ...lane.models.discover(ctx)] : lane.models.list;

/** A lane's default model among its models (`laneModels`, read once by the caller): declared, else the first image model of a lane that discovers them. */
export const defaultModel = (lane: LaneModule, kind: 'image' | 'video', models: readonly ModelSpec[]): string | undefined =>
  kind === 'video'
    ? (lane.video?.defaultModel ?? lane.models.defaultVideo)
    : (lane.models.default ?? (lane.models.discover ? models.find((model) => model.kind === 'image')?.id : undefined));

/** A model of this lane by id or alias. */
export const laneModel = (lane: LaneModule, id: string): ModelSpec | undefined =>
  lane.models.list.find((model) => model.id === canonical(lane, id));

/** Whether any lane knows this id (or alias). */
export const isKnownModel = (id: string): boolean => LANE_MODULES.some((lane) => laneModel(lane, id) !== undefined);

/** The lanes that offer a model. */
export const lanesOfModel = (id: string): LaneId[] =>
  LANE_MODULES.filter((lane) => laneModel(lane, id) !== undefined).map((lane) => lane.id);

/**
 * Resolves the model a job runs with on `lane`. Unknown ids give
 * INVALID_IMAGE_MODEL (or the lane's own code); ids this lane has but that
 * cannot make this kind of output give IMAGE_MODEL_UNSUPPORTED, as do ids of
 * other lanes.
 */
export function resolveModel(
  lane: LaneModule,
  requested: string | undefined,
  kind: 'image' | 'video' = 'image',
  ctx?: StudioContext,
): ResolvedModel {
  const models = laneModels(lane, ctx);
  const wanted = requested ?? defaultModel(lane, kind, models);
  const wantedKind = (model: ModelSpec) => (kind === 'video' ? model.kind === 'video' : model.kind !== 'video');
  const valid = models.filter(wantedKind).map((model) => model.id);
  if (!wanted)
    throw new ServiceError('INVALID_IMAGE_MODEL', `The ${lane.id} lane has no default model; name one.`, {
      details: { lane: lane.id, valid },
    });
  const spec = models.find((model) => model.id === canonical(lane, wanted));
  if (!spec) {
    // A lane with its own code for a model it does not offer (e.g. beta-api: "not nano-fruit-2 or
    // nano-fruit-pro") answers it for every other id, another lane's included.
    if (isKnownModel(wanted) && !lane.codes.invalidModel) {
      throw new ServiceError('IMAGE_MODEL_UNSUPPORTED', `Model "${wanted}" is not offered on the ${lane.id} lane.`, {
        details: { lane: lane.id, model: wanted, valid, offeredBy: lanesOfModel(wanted) },
      });
    }
    const offeredBy = lanesOfModel(wanted);
    throw new ServiceError(
      lane.codes.invalidModel ?? 'INVALID_IMAGE_MODEL',
      `${offeredBy.length ? 'Model' : 'Unknown model'} "${wanted}" is not a model of the ${lane.id} lane (valid: ${valid.join(', ')}).`,
      {
        details: { lane: lane.id, model: wanted, valid, ...(offeredBy.length ? { offeredBy } : {}) },
      },
    );
  }
  if (!wantedKind(spec)) {
    throw new ServiceError(
      'IMAGE_MODEL_UNSUPPORTED',
      `Model "${spec.id}" cannot generate ${kind === 'video' ? 'video' : 'images'} on the ${lane.id} lane.`,
      { details: { lane: lane.id, model: spec.id, valid } },
    );
  }
  const runs = spec.runsAs ? (laneModel(lane, spec.runsAs) ?? spec) : spec;
  return { requested: wanted, id: runs.id, upstreamId: runs.upstreamId ?? runs.id, spec: runs };
}

/** One model across the lanes that offer it (GET /api/capabilities, `svc models`). */
export interface CatalogModel extends Omit<ModelSpec, 'runsAs' | 'options'> {
  /** The model's own options as JSON Schema (a discovered model's parameters), when it has its own. */
  readonly options?: Record<string, unknown>;
  readonly providers: LaneId[];
  readonly aliases: string[];
  /** Lanes on which the id runs as another model. */
  readonly runsAs?: Partial<Record<LaneId, string>>;
}

/** Every model of every lane, merged by id; a model's own lane (where it does not run as another) describes it. */
export function catalogModels(ctx?: StudioContext): CatalogModel[] {
  const merged = new Map<string, { spec: ModelSpec; providers: LaneId[]; aliases: Set<string>; runsAs: Partial<Record<LaneId, string>> }>();
  for (const lane of LANE_MODULES) {
    for (const model of laneModels(lane, ctx)) {
      let entry = merged.get(model.id);
      if (!entry) merged.set(model.id, (entry = { spec: model, providers: [], aliases: new Set(), runsAs: {} }));
      else if (entry.spec.runsAs && !model.runsAs) entry.spec = model;
      entry.providers.push(lane.id);
      if (model.runsAs) entry.runsAs[lane.id] = model.runsAs;
      for (const [alias, target] of Object.entries(lane.models.aliases ?? {})) if (target === model.id) entry.aliases.add(alias);
    }
  }
  return [...merged.values()].map(({ spec, providers, aliases, runsAs }) => {
    const { runsAs: _ignored, options, ...rest } = spec;
    return {
      ...rest,
      ...(options ? { options: z.toJSONSchema(options) } : {}),
      providers,
      aliases: [...aliases],
      ...(Object.keys(runsAs).length ? { runsAs } : {}),
    };
  });
}

/** Every alias of every lane: old id → current id. */
export function catalogAliases(): Record<string, string> {
  return Object.assign({}, ...LANE_MODULES.map((lane) => lane.models.aliases ?? {})) as Record<string, string>;
}
