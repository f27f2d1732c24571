import { ServiceError } from '../errors.js';
import {
  COMMON_CONTROLS,
  SIZE_RULE,
  sizeProblem,
  type CommonControl,
  type ImageJobRequest,
  type PlannedModel,
  type SlotFields,
  type SlotPlan,
} from '../api/index.js';
import { pickLane } from '../catalog/auto.js';
import { controlVerdict, droppedWarnings } from '../catalog/controls.js';
import { resolveModel } from '../catalog/models.js';
import { LANES, operationsOf } from '../catalog/registry.js';
import type { StudioContext } from '../context.js';
import { parseLaneOptions } from '../lanes/define-lane.js';
import { settingOf } from '../lanes/settings.js';
import type { LaneImageRequest, LaneModule } from '../lanes/types.js';
import { describeInput, loadImageInput, loadReferences, type ReferenceImage } from '../references.js';
import type { JobSpec } from './running-job.js';

// From a validated request to an image job: which lane (resolving `auto`),
// which model, the lane's checks (operation, mask, controls, its own options,
// credential preflight), then the input images. Everything here runs before
// the job is accepted, so its errors are ordinary JSON answers even on SSE and
// async requests. The plan is split in two: what is stored with the job (JSON)
// and the decoded images only this process holds.

export type Operation = ImageJobRequest['operation'];

/** The settings of one output, as a slot of a request gives them. */
export type ImageFields = Omit<SlotFields, 'provider'> & {
  readonly provider?: SlotFields['provider'];
  readonly prompt: string;
  readonly negativePrompt?: string;
};

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
const controlsSet = (fields: Omit<ImageFields, 'prompt'>): CommonControl[] =>
  COMMON_CONTROLS.filter((control) => fields[control] !== undefined);

/** Operation, mask and batch on a named lane, with the lane's own codes. */
function checkOperation(lane: LaneModule, operation: Operation, mask: boolean, batch: boolean): void {
  const operations = operationsOf(lane);
  if (operation === 'generate' && !operations.generate)
    throw new ServiceError('LANE_UNSUPPORTED', `The ${lane.id} lane does not generate images.`, { details: { lane: lane.id } });
  if (operation === 'edit' && !operations.edit) {
    // A lane that names its own mask refusal says that one for an edit with a mask (epsilon).
    if (mask && lane.codes.maskUnsupported)
      throw new ServiceError(lane.codes.maskUnsupported, `The ${lane.id} lane cannot edit with a mask.`, { details: { lane: lane.id } });
    throw new ServiceError(lane.codes.editUnsupported ?? 'LANE_UNSUPPORTED', `The ${lane.id} lane cannot edit images.`, {
      details: { lane: lane.id },
    });
  }
  if (mask && !operations.mask) {
    throw new ServiceError(lane.codes.maskUnsupported ?? 'MASK_UNSUPPORTED', `The ${lane.id} lane cannot edit with a mask.`, {
      details: { lane: lane.id },
    });
  }
  if (batch && !operations.multimode) {
    throw new ServiceError('LANE_UNSUPPORTED', `The ${lane.id} lane does not run in a multimode batch.`, {
      details: { lane: lane.id, field: 'multimode' },
    });
  }
}

/** Controls the spec says the lane lacks are refused; any other it lacks is dropped with a warning (catalog/controls.ts). */
function checkControls(lane: LaneModule, controls: readonly CommonControl[]): readonly CommonControl[] {
  const { refused, dropped } = controlVerdict(lane, controls);
  const [control] = refused;
  if (control !== undefined) {
    throw new ServiceError('LANE_UNSUPPORTED', `The ${lane.id} lane has no ${control} control.`, {
      details: { lane: lane.id, field: control, supported: lane.controls },
    });
  }
  return dropped;
}

/** The common size rule, unless the lane checks sizes by its vendor's own (delta). */
function checkSize(lane: LaneModule, size: string | undefined): void {
  if (size === undefined || lane.ownSizeRule) return;
  const problem = sizeProblem(size);
  if (problem) throw new ServiceError('BAD_REQUEST', `size: ${problem}`, { details: { field: 'size', lane: lane.id, rule: SIZE_RULE } });
}

/** Lane, model, checks and the credential preflight of one slot; no image is decoded here. */
async function resolveSlot(
  ctx: StudioContext,
  requestId: string,
  fields: ImageFields,
  operation: Operation,
  mask: boolean,
  batch: boolean,
  references: number,
): Promise<SlotPlan> {
  const { provider, model: requested, options, prompt, ...rest } = fields;
  const controls = controlsSet(rest);
  const { lane, skipped } = await pickLane(ctx, provider, { operation, mask, batch, model: requested, controls, references });
  // Auto picks only a lane that can take the request; a named lane is checked here, with its own codes.
  if (provider !== undefined && provider !== 'auto') checkOperation(lane, operation, mask, batch);
  await lane.adapter?.prepare?.(ctx);
  const dropped = checkControls(lane, controls);
  checkSize(lane, dropped.includes('size') ? undefined : rest.size);
  const kept = Object.fromEntries(Object.entries(rest).filter(([name]) => !(dropped as readonly string[]).includes(name))) as typeof rest;
  // Resolved once (aliases, the lane default, compatibility): what is stored is what runs, after a restart too.
  const {
    requested: asked,
    id,
    upstreamId,
    spec,
  } = resolveModel(lane, requested ?? (lane.settings?.model ? settingOf<string>(ctx, lane, 'model') : undefined), 'image', ctx);
  // A model with options of its own (a flow workflow's parameters) is validated by them, else the lane's.
  const resolvedOptions = parseLaneOptions(spec.options ? { ...lane, options: spec.options } : lane, options);
  lane.adapter?.preflight?.(ctx);
  const model: PlannedModel = { requested: asked, id, upstreamId };
  return {
    requestId,
    lane: lane.id,
    model,
    fields: { prompt, ...kept, format: kept.format ?? DEFAULT_FORMAT, options: resolvedOptions },
    ...(dropped.length ? { warnings: droppedWarnings(lane, dropped) } : {}),
    ...(skipped ? { routing: { requested: 'auto' as const, skipped } } : {}),
  };
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
  const referenceCount = Array.isArray(inputs.references) ? inputs.references.length : 0;
  for (const slot of slots)
    resolved.push(await resolveSlot(ctx, slot.requestId, slot.fields, operation, mask, options.batch === true, referenceCount));

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
 * The job of a plan, its kind and stored request aside (the route names them):
 * its identity (the lane and model that run; null when the slots of a batch
 * differ), the decoded inputs for this process and the input images to store
 * with it.
 */
export function imageJob(plan: ImagePlan, requestId: string): Omit<JobSpec<'generate'>, 'kind' | 'request'> {
  const lanes = new Set(plan.request.slots.map((slot) => slot.lane));
  const models = new Set(plan.request.slots.map((slot) => slot.model.id));
  const { references, image, mask } = plan.inputs;
  return {
    requestId,
    lane: lanes.size === 1 ? [...lanes][0] : null,
    model: models.size === 1 ? [...models][0] : null,
    inputs: plan.inputs,
    inputImages: [...references, ...(image ? [image] : []), ...(mask ? [mask] : [])],
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
      model: slot.model,
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
