import { ServiceError } from '../../common/errors.js';
import type { ImageFormat, Moderation, Quality, ReasoningEffort } from '../catalog/controls.js';
import { AUTO_ORDER, LANES, type LaneId, type ProviderLaneId } from '../catalog/lanes.js';
import { findModel, resolveModel } from '../catalog/models.js';
import type { StudioContext } from '../context.js';
import { LANE_ADAPTERS } from '../lanes/index.js';
import { laneStatus } from '../lanes/status.js';
import type { LaneAdapter } from '../lanes/types.js';
import { loadImageInput, loadReferences } from '../references.js';
import type { ImagePlan } from './image-job.js';

// From a validated request body to an ImagePlan: which lane (resolving
// `auto`), which model, lane capability checks, the credential preflight and
// the input images. Everything here runs before the job is accepted, so its
// errors are ordinary JSON answers even on SSE and async requests.

/** The generation fields shared by generate, edit and each multimode slot. */
export interface ImageFields {
  readonly prompt: string;
  readonly provider?: LaneId;
  readonly model?: string;
  readonly quality?: Quality;
  readonly size?: string;
  readonly format?: ImageFormat;
  readonly moderation?: Moderation;
  readonly reasoning?: ReasoningEffort;
  readonly negativePrompt?: string;
  readonly references?: readonly unknown[];
}

export interface EditInputs {
  readonly image: unknown;
  readonly mask?: unknown;
}

export const DEFAULT_FORMAT: ImageFormat = 'png';

type Operation = ImagePlan['operation'];

/** Whether a lane can take this kind of request at all (before credentials). */
function laneCanTake(lane: ProviderLaneId, adapter: LaneAdapter, operation: Operation, mask: boolean, model: string | undefined): boolean {
  const supports = LANES[lane].supports;
  if (operation === 'generate' ? !adapter.generate || !supports.generate : !adapter.edit || !supports.edit) return false;
  if (mask && !supports.mask) return false;
  if (model !== undefined && !findModel(model)?.lanes.includes(lane)) return false;
  return true;
}

/** `auto`: the first lane of AUTO_ORDER that this build has, that is ready, and that can take the request. */
async function pickAutoLane(ctx: StudioContext, operation: Operation, mask: boolean, model: string | undefined): Promise<ProviderLaneId> {
  const skipped: Record<string, string> = {};
  for (const lane of AUTO_ORDER) {
    const adapter = LANE_ADAPTERS[lane];
    if (!adapter || !laneCanTake(lane, adapter, operation, mask, model)) {
      skipped[lane] = adapter ? 'cannot take this request' : 'not available in this build';
      continue;
    }
    const status = await laneStatus(ctx, lane);
    if (status.state === 'ready') return lane;
    skipped[lane] = status.reason;
  }
  const code = LANES.auto.missingCredentialCode;
  throw new ServiceError(code, 'No lane is ready for this request (provider auto). Sign in to the chat account or set OMNI_API_KEY.', { details: { autoOrder: AUTO_ORDER, lanes: skipped } });
}

export async function pickLane(ctx: StudioContext, provider: LaneId | undefined, operation: Operation, mask: boolean, model: string | undefined): Promise<ProviderLaneId> {
  if (provider === undefined || provider === 'auto') return pickAutoLane(ctx, operation, mask, model);
  if (!LANE_ADAPTERS[provider]) {
    throw new ServiceError('LANE_NOT_AVAILABLE', `The ${provider} lane is not available in this build.`, {
      details: { lane: provider, available: Object.keys(LANE_ADAPTERS) },
    });
  }
  return provider;
}

/** Controls the lane does not have are refused, not silently dropped. */
function checkControls(lane: ProviderLaneId, fields: ImageFields): void {
  const supports = LANES[lane].supports;
  const controls = ['quality', 'size', 'format', 'moderation', 'negativePrompt'] as const;
  for (const control of controls) {
    if (fields[control] !== undefined && !supports[control]) {
      throw new ServiceError('LANE_UNSUPPORTED', `The ${lane} lane has no ${control} control.`, {
        details: { lane, field: control, supported: controls.filter((name) => supports[name]) },
      });
    }
  }
}

function checkOperation(lane: ProviderLaneId, adapter: LaneAdapter, operation: Operation, mask: boolean): void {
  const supports = LANES[lane].supports;
  if (operation === 'generate' && (!adapter.generate || !supports.generate)) {
    throw new ServiceError('LANE_UNSUPPORTED', `The ${lane} lane does not generate images.`, { details: { lane } });
  }
  if (operation === 'edit' && (!adapter.edit || !supports.edit)) {
    throw new ServiceError(LANES[lane].codes?.editUnsupported ?? 'LANE_UNSUPPORTED', `The ${lane} lane cannot edit images.`, { details: { lane } });
  }
  if (mask && !supports.mask) {
    throw new ServiceError(LANES[lane].codes?.maskUnsupported ?? 'MASK_UNSUPPORTED', `The ${lane} lane cannot edit with a mask.`, { details: { lane } });
  }
}

/** One output of a batch: its requestId and its own settings (the input images are the batch's). */
export interface PlanSlot {
  readonly requestId: string;
  readonly fields: Omit<ImageFields, 'references'>;
}

/** The input images of a request or batch, as the client sent them. */
export interface PlanInputs {
  readonly references?: readonly unknown[];
  readonly edit?: EditInputs;
}

interface ResolvedSlot {
  readonly lane: ProviderLaneId;
  readonly adapter: LaneAdapter;
  readonly model: ImagePlan['request']['model'];
}

/** Lane, model, capability checks and the credential preflight of one slot; no image is decoded here. */
async function resolveSlot(ctx: StudioContext, fields: PlanSlot['fields'], operation: Operation, mask: boolean): Promise<ResolvedSlot> {
  const lane = await pickLane(ctx, fields.provider, operation, mask, fields.model);
  const adapter = LANE_ADAPTERS[lane] as LaneAdapter;
  checkOperation(lane, adapter, operation, mask);
  checkControls(lane, fields);
  const model = resolveModel(lane, fields.model ?? adapter.defaultModel?.(ctx));
  adapter.preflight?.(ctx);
  return { lane, adapter, model };
}

/** How many references a lane takes next to the edited image, and the code for more. */
const referenceLimit = (lane: ProviderLaneId, editing: boolean) => ({
  lane,
  max: Math.max(0, LANES[lane].maxReferences - (editing ? 1 : 0)),
  tooManyCode: LANES[lane].codes?.tooManyReferences,
});

/**
 * Validates and resolves the slots of one request into plans; throws the
 * answer's ServiceError. Every slot is resolved first (so a lane or credential
 * problem costs no decoding), then the input images are loaded once and the
 * same (immutable) images go to every slot: a batch of n does not hold n
 * copies of its references.
 */
export async function planBatch(ctx: StudioContext, slots: readonly PlanSlot[], inputs: PlanInputs, operation: Operation): Promise<ImagePlan[]> {
  if (slots.length === 0) return [];
  const { edit } = inputs;
  const mask = edit?.mask !== undefined && edit.mask !== null;
  const resolved: ResolvedSlot[] = [];
  for (const slot of slots) resolved.push(await resolveSlot(ctx, slot.fields, operation, mask));

  const image = edit ? await loadImageInput(ctx, edit.image, 'image') : undefined;
  const maskImage = mask && edit ? await loadImageInput(ctx, edit.mask, 'mask') : undefined;
  // The count is checked against every slot's lane before any decoding; an error names the first lane it exceeds.
  const limits = resolved.map(({ lane }) => referenceLimit(lane, image !== undefined));
  const count = Array.isArray(inputs.references) ? inputs.references.length : 0;
  const limit = limits.find(({ max }) => count > max) ?? limits[0];
  const references = await loadReferences(ctx, inputs.references ?? [], limit);

  return resolved.map(({ lane, adapter, model }, index): ImagePlan => {
    const { requestId, fields } = slots[index];
    return {
      lane,
      adapter,
      operation,
      request: {
        requestId,
        prompt: fields.prompt,
        model,
        format: fields.format ?? DEFAULT_FORMAT,
        quality: fields.quality,
        size: fields.size,
        moderation: fields.moderation,
        reasoning: fields.reasoning,
        negativePrompt: fields.negativePrompt,
        references,
        image,
        mask: maskImage,
      },
    };
  });
}

/** Validates and resolves one image request into a plan; throws the answer's ServiceError. */
export async function planImage(ctx: StudioContext, requestId: string, fields: ImageFields, operation: Operation, edit?: EditInputs): Promise<ImagePlan> {
  const [plan] = await planBatch(ctx, [{ requestId, fields }], { references: fields.references, edit }, operation);
  return plan;
}
