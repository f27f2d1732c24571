import { ServiceError } from '../errors.js';
import type { CommonControl, LaneId, ProviderId } from '../api/index.js';
import type { StudioContext } from '../context.js';
import type { LaneModule, LaneStatus } from '../lanes/types.js';
import { controlVerdict } from './controls.js';
import { isKnownModel, laneModel, lanesOfModel } from './models.js';
import { AUTO_ORDER, LANES, operationsOf } from './registry.js';
import { credentialRemedy, laneStatus } from './status.js';

// Which lane runs a request: the one named, or for `auto` (and no provider)
// the first lane of AUTO_ORDER that can take the request and is ready (a lane
// that would drop a control it lacks only after those that honour them all).
// When none is, the answer names every lane considered and why it refused.

/** What a request needs of a lane. */
export interface LaneNeeds {
  readonly operation: 'generate' | 'edit';
  readonly mask: boolean;
  /** A slot of a multimode batch. */
  readonly batch?: boolean;
  readonly model?: string;
  /** The shared controls the request sets. */
  readonly controls: readonly CommonControl[];
  /** How many references the request sends (an edit's image aside). */
  readonly references?: number;
}

/** Why a lane cannot take the request (before its credential is looked at), or undefined when it can. */
function refusal(lane: LaneModule, needs: LaneNeeds): string | undefined {
  if (!lane.adapter) return 'not available in this build';
  const operations = operationsOf(lane);
  if (!operations[needs.operation]) return `cannot ${needs.operation}`;
  if (needs.mask && !operations.mask) return 'cannot edit with a mask';
  if (needs.batch && !operations.multimode) return 'does not run in a multimode batch';
  if (needs.model !== undefined && !laneModel(lane, needs.model)) return `does not offer ${needs.model}`;
  const { refused } = controlVerdict(lane, needs.controls);
  if (refused.length) return `has no ${refused.join(', ')} control`;
  const references = needs.references ?? 0;
  const room = Math.max(0, lane.maxInputImages - (needs.operation === 'edit' ? 1 : 0));
  if (references > room) return room === 0 ? 'takes no references' : `takes at most ${room} reference${room === 1 ? '' : 's'}`;
  return undefined;
}

/** The lane auto chose and the lanes it passed over before it. */
export interface PickedLane {
  readonly lane: LaneModule;
  /** Set when `auto` chose: the lanes before it in the order and why each was passed over. */
  readonly skipped?: Readonly<Partial<Record<LaneId, string>>>;
}

/** "oauth: reason; api: reason" for a message. */
const listReasons = (lanes: Partial<Record<LaneId, string>>): string =>
  Object.entries(lanes)
    .map(([id, why]) => `${id}: ${why}`)
    .join('; ');

/** A lane's status now; the providers route passes the ones it already has (probes run once per answer). */
type StatusOf = (id: LaneId) => Promise<LaneStatus>;

async function routeAuto(ctx: StudioContext, needs: LaneNeeds, statusOf: StatusOf = (id) => laneStatus(ctx, id)): Promise<PickedLane> {
  if (needs.model !== undefined && !isKnownModel(needs.model)) {
    const valid = [
      ...new Set(AUTO_ORDER.flatMap((id) => LANES[id].models.list.filter((model) => model.kind !== 'video').map((model) => model.id))),
    ];
    throw new ServiceError('INVALID_IMAGE_MODEL', `Unknown model "${needs.model}" (valid: ${valid.join(', ')}).`, {
      details: { model: needs.model, valid },
    });
  }
  const skipped: Partial<Record<LaneId, string>> = {};
  const candidates: LaneModule[] = [];
  for (const id of AUTO_ORDER) {
    const why = refusal(LANES[id], needs);
    if (why) skipped[id] = why;
    else candidates.push(LANES[id]);
  }
  // A lane that honours every control goes before one that would drop some (with a warning).
  const drops = (lane: LaneModule) => (controlVerdict(lane, needs.controls).dropped.length > 0 ? 1 : 0);
  const ranked = [...candidates].sort((a, b) => drops(a) - drops(b));
  for (const lane of ranked) {
    const status = await statusOf(lane.id);
    if (status.state === 'ready') {
      // The lanes passed over before it (the auto order's, then any ranked first): what the page shows as "moved to".
      const before = new Set([
        ...AUTO_ORDER.slice(0, AUTO_ORDER.indexOf(lane.id)),
        ...ranked.slice(0, ranked.indexOf(lane)).map((other) => other.id),
      ]);
      return {
        lane,
        skipped: Object.fromEntries(
          AUTO_ORDER.filter((id) => before.has(id) && skipped[id] !== undefined).map((id) => [id, skipped[id] as string]),
        ),
      };
    }
    skipped[lane.id] = status.reason;
  }
  const details = { autoOrder: AUTO_ORDER, lanes: skipped };
  if (candidates.length === 0) {
    const offeredBy = needs.model ? lanesOfModel(needs.model) : [];
    const which = offeredBy.length
      ? `${needs.model} runs on ${offeredBy.join(', ')}, and none of them can take this request`
      : 'no lane of this build can take it';
    throw new ServiceError(
      'LANE_NOT_AVAILABLE',
      `No lane can take this request (provider auto): ${which}. Considered: ${listReasons(skipped)}.`,
      { details },
    );
  }
  // The remedy names what would make one of the lanes that could take it ready.
  const remedies = [...new Set(candidates.map((lane) => credentialRemedy(ctx, lane)).filter(Boolean))];
  const considered = listReasons(Object.fromEntries(candidates.map((lane) => [lane.id, skipped[lane.id] as string])));
  throw new ServiceError(
    'NO_LANE_READY',
    `No lane is ready for this request (provider auto): ${remedies.join(', or ') || 'see details'}. Considered: ${considered}.`,
    { details },
  );
}

/** The lane that runs a request; throws the answer's error when there is none. */
export async function pickLane(ctx: StudioContext, provider: ProviderId | undefined, needs: LaneNeeds): Promise<PickedLane> {
  if (provider === undefined || provider === 'auto') return routeAuto(ctx, needs);
  const lane = LANES[provider];
  if (!lane.adapter) {
    throw new ServiceError('LANE_NOT_AVAILABLE', `The ${provider} lane is not available in this build.`, {
      details: {
        lane: provider,
        available: Object.values(LANES)
          .filter((candidate) => candidate.adapter)
          .map((candidate) => candidate.id),
      },
    });
  }
  return { lane };
}

/**
 * Where `auto` would send a plain text-to-image request now (GET /api/providers): the lane and the
 * lanes passed over before it with their reasons, or null and why none can take it. The page says
 * from it when auto has moved off its first choice (a cooldown, a missing key).
 */
export async function autoChoice(ctx: StudioContext, statusOf?: StatusOf): Promise<AutoChoice> {
  try {
    const { lane, skipped } = await routeAuto(ctx, { operation: 'generate', mask: false, controls: [] }, statusOf);
    return { lane: lane.id, moved: Object.keys(skipped ?? {}).length > 0, skipped: skipped ?? {} };
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    return {
      lane: null,
      moved: false,
      skipped: (error.details?.lanes ?? {}) as Partial<Record<LaneId, string>>,
      code: error.code,
      reason: error.message,
    };
  }
}

export interface AutoChoice {
  readonly lane: LaneId | null;
  /** True when auto passed over a lane before the order's first (its first choice is not ready). */
  readonly moved: boolean;
  readonly skipped: Readonly<Partial<Record<LaneId, string>>>;
  readonly code?: string;
  readonly reason?: string;
}
