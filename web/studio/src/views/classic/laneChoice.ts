import type { CapabilitiesBody, CommonControl, LaneCapabilities, ProviderId, ProviderStatus } from '../../api/contract';
import { lanesOf, statusOf } from '../../api/queries';
import type { DefaultsBody } from '../../api/responses';

// What the composer offers for the chosen provider, read from the catalog
// (GET /api/capabilities), the lanes' readiness (GET /api/providers) and the
// defaults in force. `auto` offers what its first ready lane takes.

export interface LaneChoice {
  id: ProviderId;
  label: string;
  /** The lane that runs (auto: its first ready lane, if any). */
  lane?: LaneCapabilities;
  ready: boolean;
  state: ProviderStatus['state'] | 'auto';
  reason: string;
  controls: readonly CommonControl[];
  /** Image models to pick from. */
  models: string[];
  defaultModel?: string;
  defaultReasoning?: string;
  defaultSize?: string;
  maxInputImages: number;
  multimode: boolean;
  edit: boolean;
  /** The lane's own options as JSON Schema. */
  options: Record<string, unknown> | null;
}

export const STATE_LABELS: Readonly<Record<ProviderStatus['state'], string>> = {
  ready: 'ready',
  needs_credential: 'needs a credential',
  needs_binary: 'needs its program',
  cooling_down: 'cooling down',
  unreachable: 'unreachable',
  unavailable: 'not in this build',
  disconnected: 'disconnected',
  locked: 'locked by its plan',
};

/** Image models of a lane (video models are for the video view). */
export function imageModels(capabilities: CapabilitiesBody, lane: LaneCapabilities): string[] {
  const videos = new Set(capabilities.models.filter((model) => model.kind === 'video').map((model) => model.id));
  return lane.models.filter((id) => !videos.has(id));
}

function sourcedString(defaults: DefaultsBody | undefined, lane: string, field: string): string | undefined {
  const entry = (defaults as Record<string, Record<string, { value?: unknown }> | undefined> | undefined)?.[lane]?.[field];
  return typeof entry?.value === 'string' ? entry.value : undefined;
}

function fromLane(
  id: ProviderId,
  capabilities: CapabilitiesBody,
  lane: LaneCapabilities,
  status: ProviderStatus | undefined,
  defaults: DefaultsBody | undefined,
): LaneChoice {
  const state = status?.state ?? (lane.built ? 'ready' : 'unavailable');
  return {
    id,
    label: lane.label,
    lane,
    ready: state === 'ready' && lane.built,
    state,
    reason: status?.reason ?? (lane.built ? '' : `This build has no adapter for the ${lane.id} lane yet.`),
    controls: lane.controls,
    models: imageModels(capabilities, lane),
    defaultModel: sourcedString(defaults, lane.id, 'model') ?? lane.defaultModel ?? undefined,
    defaultReasoning: sourcedString(defaults, lane.id, 'reasoning'),
    defaultSize: sourcedString(defaults, lane.id, 'size'),
    maxInputImages: lane.maxInputImages,
    multimode: lane.operations.multimode,
    edit: lane.operations.edit,
    options: lane.options,
  };
}

/**
 * What the composer offers for `provider`. On auto with a chosen `model`, the lane that runs is the
 * first ready lane offering that model (as the server routes it), so pressing alpha's Fast names alpha
 * at once, not the first ready lane of all.
 */
export function laneChoice(
  provider: ProviderId,
  capabilities: CapabilitiesBody,
  providers: ProviderStatus[] | undefined,
  defaults: DefaultsBody | undefined,
  model = '',
): LaneChoice {
  const lanes = lanesOf(capabilities);
  if (provider !== 'auto') {
    const lane = lanes.find((candidate) => candidate.id === provider);
    if (lane) return fromLane(provider, capabilities, lane, statusOf(providers, provider), defaults);
  }
  const ready = capabilities.autoOrder
    .map((id) => lanes.find((lane) => lane.id === id))
    .filter((lane): lane is LaneCapabilities => lane !== undefined && lane.built && statusOf(providers, lane.id)?.state === 'ready');
  const offering = model ? ready.find((lane) => imageModels(capabilities, lane).includes(model)) : undefined;
  const first = offering ?? ready[0];
  const base = first ? fromLane('auto', capabilities, first, statusOf(providers, first.id), defaults) : undefined;
  return {
    id: 'auto',
    label: 'Auto',
    lane: first,
    ready: first !== undefined,
    state: 'auto',
    reason: offering
      ? `Runs on the first ready lane with ${model}: now ${offering.label} (${offering.id}).`
      : first
        ? `Runs on the first ready lane: now ${first.label} (${first.id}).`
        : 'No lane is ready: Settings shows what each one needs.',
    controls: base?.controls ?? [],
    models: [...new Set(ready.flatMap((lane) => imageModels(capabilities, lane)))],
    defaultModel: base?.defaultModel,
    defaultReasoning: base?.defaultReasoning,
    defaultSize: base?.defaultSize,
    maxInputImages: base?.maxInputImages ?? 0,
    multimode: base?.multimode ?? false,
    edit: base?.edit ?? false,
    options: null,
  };
}

/**
 * The estimated price of one image, where the catalog has a price table for
 * the lane (beta-api: by model and resolution tier); undefined elsewhere.
 */
export function estimatedPrice(
  choice: LaneChoice,
  capabilities: CapabilitiesBody,
  model: string,
  options: Record<string, unknown>,
): number | undefined {
  if (choice.lane?.id !== 'beta-api') return undefined;
  const table = capabilities.values.betaCost as Record<string, { perImageUsd?: Record<string, number> }> | undefined;
  const tier = typeof options.resolution === 'string' ? options.resolution : '1K';
  return table?.[model || choice.defaultModel || '']?.perImageUsd?.[tier];
}
