import { ServiceError } from '../../common/errors.js';
import { COMMON_CONTROLS, type CommonControl, type JobKind, type LaneId, type SlotFields } from '../api/index.js';
import { pickLane } from '../catalog/auto.js';
import { resolveModel } from '../catalog/models.js';
import { LANES, operationsOf } from '../catalog/registry.js';
import type { StudioContext } from '../context.js';
import { settingOf } from '../lanes/settings.js';
import type { LaneImageRequest, LaneModule } from '../lanes/types.js';
import { describeInput, loadImageInput, loadReferences, type InputDescriptor, type ReferenceImage } from '../references.js';
import type { JobSpec } from './running-job.js';

// From a validated request to an image job: which lane (resolving `auto`),
// which model, the lane's checks (operation, mask, controls, its own options,
// credential preflight), then the input images. Everything here runs before
// the job is accepted, so its errors are ordinary JSON answers even on SSE and
// async requests. The plan is split in two: what is stored with the job (JSON)
// and the decoded images only this process holds.

export type Operation = 'generate' | 'edit';

/** The settings of one output, as a slot of a request gives them. */
export type ImageFields = Omit<SlotFields, 'provider'> & { readonly provider?: SlotFields['provider']; readonly prompt: string; readonly negativePrompt?: string };

/** One output, resolved: stored with the job. */
export interface SlotPlan {
  readonly requestId: string;
  readonly lane: LaneId;
  /** The model id asked for, or the lane's default at planning time. */
  readonly model: string;
  readonly fields: Omit<ImageFields, 'provider' | 'model'>;
}

/** What an image job stores: its operation, slots and input descriptors (never the bytes). */
export interface ImageJobRequest extends Record<string, unknown> {
  readonly operation: Operation;
  readonly slots: readonly SlotPlan[];
  readonly inputs: { readonly references: readonly InputDescriptor[]; readonly image?: InputDescriptor; readonly mask?: InputDescriptor };
}

/** The decoded input images, shared by every slot of a batch (immutable). */
export interface ImageInputs {
  readonly references: readonly ReferenceImage[];
  readonly image?: ReferenceImage;
  readonly mask?: ReferenceImage;
}

export interface ImagePlan {
  readonly request: ImageJobRequest;
  readonly inputs: ImageInputs;
}

export const DEFAULT_FORMAT = 'png' as const;

/** The controls a slot sets. */
const controlsSet = (fields: Omit<ImageFields, 'prompt'>): CommonControl[] => COMMON_CONTROLS.filter((control) => fields[control] !== undefined);

/** Operation, mask and batch on a named lane, with the lane's own codes. */
function checkOperation(lane: LaneModule, operation: Operation, mask: boolean, batch: boolean): void {
  const operations = operationsOf(lane);
  if (operation === 'generate' && !operations.generate) throw new ServiceError('LANE_UNSUPPORTED', `The ${lane.id} lane does not generate images.`, { details: { lane: lane.id } });
  if (operation === 'edit' && !operations.edit) {
    // A lane that names its own mask refusal says that one for an edit with a mask (epsilon).
    if (mask && lane.codes.maskUnsupported) throw new ServiceError(lane.codes.maskUnsupported, `The ${lane.id} lane cannot edit with a mask.`, { details: { lane: lane.id } });
    throw new ServiceError(lane.codes.editUnsupported ?? 'LANE_UNSUPPORTED', `The ${lane.id} lane cannot edit images.`, { details: { lane: lane.id } });
  }
  if (mask && !operations.mask) {
    throw new ServiceError(lane.codes.maskUnsupported ?? 'MASK_UNSUPPORTED', `The ${lane.id} lane cannot edit with a mask.`, { details: { lane: lane.id } });
  }
  if (batch && !operations.multimode) {
    throw new ServiceError('LANE_UNSUPPORTED', `The ${lane.id} lane does not run in a multimode batch.`, { details: { lane: lane.id, field: 'multimode' } });
  }
}

/** Controls the lane does not have are refused, not silently dropped. */
function checkControls(lane: LaneModule, fields: Omit<ImageFields, 'prompt'>): void {
  for (const control of controlsSet(fields)) {
    if (!lane.controls.includes(control)) {
      throw new ServiceError('LANE_UNSUPPORTED', `The ${lane.id} lane has no ${control} control.`, { details: { lane: lane.id, field: control, supported: lane.controls } });
    }
  }
}

/** The lane's own options, validated by the lane's schema (the AI SDK's providerOptions, per lane). */
function laneOptions(lane: LaneModule, options: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!lane.options) {
    if (options && Object.keys(options).length > 0) {
      throw new ServiceError('LANE_UNSUPPORTED', `The ${lane.id} lane has no options.`, { details: { lane: lane.id, field: 'options', unknown: Object.keys(options) } });
    }
    return {};
  }
  const parsed = lane.options.safeParse(options ?? {});
  if (parsed.success) return parsed.data as Record<string, unknown>;
  const issue = parsed.error.issues[0];
  const field = ['options', ...issue.path.map(String)].join('.');
  const details: Record<string, unknown> = { lane: lane.id, field };
  if (issue.code === 'invalid_value') details.valid = issue.values;
  if (issue.code === 'unrecognized_keys') Object.assign(details, { unknown: issue.keys, valid: Object.keys(lane.options.shape) });
  throw new ServiceError(lane.codes.options?.[String(issue.path[0])] ?? 'BAD_REQUEST', `${field}: ${issue.message}`, { details });
}

/** Lane, model, checks and the credential preflight of one slot; no image is decoded here. */
async function resolveSlot(ctx: StudioContext, requestId: string, fields: ImageFields, operation: Operation, mask: boolean, batch: boolean): Promise<SlotPlan> {
  const { provider, model: requested, options, prompt, ...rest } = fields;
  const lane = await pickLane(ctx, provider, { operation, mask, batch, model: requested, controls: controlsSet(rest) });
  checkOperation(lane, operation, mask, batch);
  checkControls(lane, rest);
  const resolvedOptions = laneOptions(lane, options);
  const model = resolveModel(lane, requested ?? (lane.settings?.model ? settingOf<string>(ctx, lane, 'model') : undefined));
  lane.adapter?.preflight?.(ctx);
  return { requestId, lane: lane.id, model: model.requested, fields: { prompt, ...rest, format: rest.format ?? DEFAULT_FORMAT, options: resolvedOptions } };
}

/** How many references a lane takes next to an edited image, and the code for more. */
const referenceLimit = (lane: LaneModule, editing: boolean) => ({
  lane: lane.id,
  max: Math.max(0, lane.maxInputImages - (editing ? 1 : 0)),
  tooManyCode: lane.codes.tooManyReferences,
});

/** The input images of a request or batch, as the client sent them. */
export interface PlanInputs {
  readonly references?: readonly unknown[];
  readonly edit?: { readonly image: unknown; readonly mask?: unknown };
}

/**
 * Validates and resolves the slots of one request; throws the answer's
 * ServiceError. Every slot is resolved first (so a lane or credential problem
 * costs no decoding), then the input images are loaded once and the same
 * immutable images serve every slot: a batch of n does not hold n copies.
 */
export async function planImageJob(
  ctx: StudioContext,
  slots: readonly { requestId: string; fields: ImageFields }[],
  inputs: PlanInputs,
  operation: Operation,
  options: { readonly batch?: boolean } = {},
): Promise<ImagePlan> {
  const { edit } = inputs;
  const mask = edit?.mask !== undefined && edit.mask !== null;
  const resolved: SlotPlan[] = [];
  for (const slot of slots) resolved.push(await resolveSlot(ctx, slot.requestId, slot.fields, operation, mask, options.batch === true));

  const image = edit ? await loadImageInput(ctx, edit.image, 'image') : undefined;
  const maskImage = mask && edit ? await loadImageInput(ctx, edit.mask, 'mask') : undefined;
  // The count is checked against every slot's lane before any decoding; an error names the first lane it exceeds.
  const limits = resolved.map((slot) => referenceLimit(LANES[slot.lane], image !== undefined));
  const count = Array.isArray(inputs.references) ? inputs.references.length : 0;
  const limit = limits.find(({ max }) => count > max) ?? limits[0];
  const references = await loadReferences(ctx, inputs.references ?? [], limit);

  return {
    request: {
      operation,
      slots: resolved,
      inputs: {
        references: references.map(describeInput),
        ...(image ? { image: describeInput(image) } : {}),
        ...(maskImage ? { mask: describeInput(maskImage) } : {}),
      },
    },
    inputs: { references, image, mask: maskImage },
  };
}

/**
 * The job of a plan: its identity (the lane and model that run; null when the
 * slots of a batch differ), the stored request, the decoded inputs for this
 * process and the input images to store with it. Every route that creates an
 * image job ends here.
 */
export function imageJobSpec(
  plan: ImagePlan,
  job: { readonly requestId: string; readonly kind: JobKind; readonly priority?: number; readonly extra?: Readonly<Record<string, unknown>> },
): JobSpec {
  const lanes = new Set(plan.request.slots.map((slot) => slot.lane));
  const models = new Set(plan.request.slots.map((slot) => resolveModel(LANES[slot.lane], slot.model).id));
  const { references, image, mask } = plan.inputs;
  return {
    requestId: job.requestId,
    kind: job.kind,
    lane: lanes.size === 1 ? [...lanes][0] : null,
    model: models.size === 1 ? [...models][0] : null,
    request: { ...plan.request, ...job.extra },
    inputs: plan.inputs,
    inputImages: [...references, ...(image ? [image] : []), ...(mask ? [mask] : [])],
    ...(job.priority !== undefined ? { priority: job.priority } : {}),
  };
}

/** What a lane is given for one slot. */
export function laneRequest(ctx: StudioContext, slot: SlotPlan, inputs: ImageInputs): { lane: LaneModule; request: LaneImageRequest } {
  const lane = LANES[slot.lane];
  const { fields } = slot;
  return {
    lane,
    request: {
      requestId: slot.requestId,
      prompt: fields.prompt,
      model: resolveModel(lane, slot.model),
      format: fields.format ?? DEFAULT_FORMAT,
      quality: fields.quality,
      size: fields.size,
      moderation: fields.moderation,
      reasoning: fields.reasoning,
      negativePrompt: fields.negativePrompt,
      options: fields.options ?? {},
      references: inputs.references,
      image: inputs.image,
      mask: inputs.mask,
    },
  };
}
