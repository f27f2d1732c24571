import { ServiceError } from '../../common/errors.js';
import type { CommonControl, LaneId, ProviderId } from '../api/index.js';
import type { StudioContext } from '../context.js';
import type { LaneModule } from '../lanes/types.js';
import { isKnownModel, laneModel, lanesOfModel } from './models.js';
import { AUTO_ORDER, LANES, operationsOf } from './registry.js';
import { credentialRemedy, laneStatus } from './status.js';

// Which lane runs a request: the one named, or for `auto` (and no provider)
// the first lane of AUTO_ORDER that can take the request and is ready.

/** What a request needs of a lane. */
export interface LaneNeeds {
  readonly operation: 'generate' | 'edit';
  readonly mask: boolean;
  /** A slot of a multimode batch. */
  readonly batch?: boolean;
  readonly model?: string;
  /** The shared controls the request sets. */
  readonly controls: readonly CommonControl[];
}

/** Why a lane cannot take the request (before its credential is looked at), or undefined when it can. */
function refusal(lane: LaneModule, needs: LaneNeeds): string | undefined {
  if (!lane.adapter) return 'not available in this build';
  const operations = operationsOf(lane);
  if (!operations[needs.operation]) return `cannot ${needs.operation}`;
  if (needs.mask && !operations.mask) return 'cannot edit with a mask';
  if (needs.batch && !operations.multimode) return 'does not run in a multimode batch';
  if (needs.model !== undefined && !laneModel(lane, needs.model)) return `does not offer ${needs.model}`;
  const missing = needs.controls.filter((control) => !lane.controls.includes(control));
  if (missing.length) return `has no ${missing.join(', ')} control`;
  return undefined;
}

async function routeAuto(ctx: StudioContext, needs: LaneNeeds): Promise<LaneModule> {
  if (needs.model !== undefined && !isKnownModel(needs.model)) {
    throw new ServiceError('INVALID_IMAGE_MODEL', `Unknown model "${needs.model}".`, {
      details: { model: needs.model, valid: [...new Set(AUTO_ORDER.flatMap((id) => LANES[id].models.list.map((model) => model.id)))] },
    });
  }
  const skipped: Partial<Record<LaneId, string>> = {};
  const candidates: LaneModule[] = [];
  for (const id of AUTO_ORDER) {
    const why = refusal(LANES[id], needs);
    if (why) skipped[id] = why;
    else candidates.push(LANES[id]);
  }
  for (const lane of candidates) {
    const status = await laneStatus(ctx, lane.id);
    if (status.state === 'ready') return lane;
    skipped[lane.id] = status.reason;
  }
  const details = { autoOrder: AUTO_ORDER, lanes: skipped };
  if (candidates.length === 0) {
    const offeredBy = needs.model ? lanesOfModel(needs.model) : [];
    const which = offeredBy.length ? `${needs.model} runs on ${offeredBy.join(', ')}, and none of them can take it in this build` : 'no lane of this build can take it';
    throw new ServiceError('LANE_NOT_AVAILABLE', `No lane can take this request (provider auto): ${which}.`, { details });
  }
  // The remedy names what would make one of the lanes that could take it ready.
  const remedies = [...new Set(candidates.map((lane) => credentialRemedy(ctx, lane)).filter(Boolean))];
  throw new ServiceError('NO_LANE_READY', `No lane is ready for this request (provider auto): ${remedies.join(', or ') || 'see details'}.`, { details });
}

/** The lane that runs a request; throws the answer's error when there is none. */
export async function pickLane(ctx: StudioContext, provider: ProviderId | undefined, needs: LaneNeeds): Promise<LaneModule> {
  if (provider === undefined || provider === 'auto') return routeAuto(ctx, needs);
  const lane = LANES[provider];
  if (!lane.adapter) {
    throw new ServiceError('LANE_NOT_AVAILABLE', `The ${provider} lane is not available in this build.`, {
      details: { lane: provider, available: Object.values(LANES).filter((candidate) => candidate.adapter).map((candidate) => candidate.id) },
    });
  }
  return lane;
}
