import { ServiceError } from '../../errors.js';
import { MCP_LANES, type McpGenerateRequest, type McpInput, type McpJobRequest } from '../../api/mcp.js';
import type { StudioContext } from '../../context.js';
import type { JobSpec } from '../../jobs/running-job.js';
import { MCP_MEDIA_KINDS, type McpMediaKind, type McpModel, type McpParameter } from './catalog.js';
import { mcpLaneOf } from './lanes.js';
import { checkExecutable } from './servers.js';

// POST /api/mcp/generate, checked before any generation call (contract §3):
// the lane, the kind, the lock, the connection, then the model and every
// parameter and input against what the model declares. A refusal names the
// field at fault; nothing reaches the server until the whole plan holds.

/** The history asset of `filename` (live, not deleted), or REFERENCE_NOT_FOUND naming the field. */
async function galleryAsset(ctx: StudioContext, filename: string, field: string) {
  const row = await ctx.store.assets.find(filename);
  if (!row || row.deleted_at)
    throw new ServiceError('REFERENCE_NOT_FOUND', `${field}: ${filename} is not in history.`, { details: { field, filename } });
  return row;
}

/** §3: at most three reference images. */
const MAX_REFERENCES = 3;

const bad = (
  code:
    | 'MCP_PARAMETER_UNSUPPORTED'
    | 'MCP_PARAMETER_INVALID'
    | 'MCP_INPUT_ROLE_UNSUPPORTED'
    | 'MCP_INPUT_ROLE_REQUIRED'
    | 'INVALID_MCP_REFERENCES',
  message: string,
  details: Record<string, unknown>,
) => new ServiceError(code, message, { details });

function checkParameter(model: McpModel, declared: McpParameter | undefined, name: string, value: string | number | boolean): void {
  const field = `parameters.${name}`;
  if (!declared) {
    const known = model.parameters.map((entry) => entry.name);
    throw bad(
      'MCP_PARAMETER_UNSUPPORTED',
      `${model.id} has no parameter "${name}" (it takes: ${known.length ? known.join(', ') : 'none'}).`,
      { field, parameter: name, model: model.id, valid: known },
    );
  }
  const invalid = (why: string) =>
    bad('MCP_PARAMETER_INVALID', `${field} of ${model.id}: ${why}.`, { field, parameter: name, model: model.id, value });
  if (typeof value !== declared.type) throw invalid(`must be a ${declared.type}`);
  if (declared.options && !declared.options.includes(value as string | number))
    throw invalid(`must be one of ${declared.options.join(', ')}`);
  if (
    typeof value === 'number' &&
    ((declared.min !== undefined && value < declared.min) || (declared.max !== undefined && value > declared.max))
  )
    throw invalid(`must be within ${declared.min ?? '-∞'}–${declared.max ?? '∞'}`);
}

/** The inputs the body names, in roles; each role checked against the model. */
async function inputsOf(ctx: StudioContext, body: McpGenerateRequest, model: McpModel): Promise<McpInput[]> {
  const references: { filename: string; tag?: string }[] = [
    ...(body.references ?? []),
    ...(body.referenceFilenames ?? []).map((filename) => ({ filename })),
  ];
  if (references.length > MAX_REFERENCES)
    throw bad('INVALID_MCP_REFERENCES', `At most ${MAX_REFERENCES} reference images, got ${references.length}.`, {
      field: 'references',
      max: MAX_REFERENCES,
    });
  const inputs: (McpInput & { field: string })[] = [
    ...(body.startFrameFilename ? [{ role: 'start_image' as const, filename: body.startFrameFilename, field: 'startFrameFilename' }] : []),
    ...(body.endFrameFilename ? [{ role: 'end_image' as const, filename: body.endFrameFilename, field: 'endFrameFilename' }] : []),
    ...references.map((reference, index) => ({
      role: 'image_references' as const,
      filename: reference.filename,
      ...(reference.tag ? { tag: reference.tag } : {}),
      field: `references.${index}`,
    })),
    ...(body.referenceVideoFilename
      ? [{ role: 'video_references' as const, filename: body.referenceVideoFilename, field: 'referenceVideoFilename' }]
      : []),
  ];
  for (const input of inputs) {
    if (!model.inputRoles.includes(input.role))
      throw bad(
        'MCP_INPUT_ROLE_UNSUPPORTED',
        `${model.id} does not take ${input.role} (${input.field}); it takes: ${model.inputRoles.join(', ')}.`,
        { field: input.field, role: input.role, model: model.id, valid: model.inputRoles },
      );
    const asset = await galleryAsset(ctx, input.filename, input.field);
    const isVideo = asset.format === 'mp4';
    if (isVideo !== (input.role === 'video_references'))
      throw new ServiceError(
        'INVALID_MCP_REFERENCES',
        `${input.field}: ${input.filename} is ${isVideo ? 'a video' : 'an image'}, which ${input.role} does not take.`,
        { details: { field: input.field, filename: input.filename } },
      );
  }
  if (body.endFrameFilename && !body.startFrameFilename)
    throw new ServiceError('MCP_END_FRAME_REQUIRES_START', 'endFrameFilename needs a startFrameFilename.', {
      details: { field: 'endFrameFilename' },
    });
  // A model without the text role (gen-4-turbo) starts from a frame it must be given.
  if (!model.inputRoles.includes('text') && model.inputRoles.includes('start_image') && !body.startFrameFilename) {
    throw bad('MCP_INPUT_ROLE_REQUIRED', `${model.id} needs a start frame (startFrameFilename).`, {
      field: 'startFrameFilename',
      role: 'start_image',
      model: model.id,
    });
  }
  return inputs.map(({ field: _field, ...input }) => input);
}

export async function planMcpGenerate(ctx: StudioContext, body: McpGenerateRequest, requestId: string): Promise<JobSpec<'mcp'>> {
  const mcp = mcpLaneOf(body.provider);
  if (!mcp)
    throw new ServiceError('MCP_PROVIDER_UNKNOWN', `provider must be ${MCP_LANES.join(' or ')}, got "${body.provider}".`, {
      details: { field: 'provider', valid: MCP_LANES },
    });
  const lane = mcp.lane;
  const media = body.kind as McpMediaKind;
  if (!MCP_MEDIA_KINDS.includes(media))
    throw new ServiceError('INVALID_KIND', `kind must be image or video, got "${body.kind}".`, {
      details: { field: 'kind', valid: MCP_MEDIA_KINDS },
    });
  checkExecutable(ctx, mcp);

  const models = await mcp.models(ctx);
  const modelId = body.model ?? mcp.defaults[media];
  const model = models.find((entry) => entry.id === modelId && entry.kind === media);
  if (!model) {
    const valid = models.filter((entry) => entry.kind === media).map((entry) => entry.id);
    throw new ServiceError('MCP_MODEL_UNSUPPORTED', `${lane} has no ${media} model "${modelId}" (${media} models: ${valid.join(', ')}).`, {
      details: { field: 'model', model: modelId, valid },
    });
  }
  const prompt = body.prompt.trim();
  if (!prompt && model.inputRoles.includes('text') && !body.startFrameFilename)
    throw new ServiceError('INVALID_PROMPT', 'prompt must not be empty.', { details: { field: 'prompt' } });
  if (body.ratio !== undefined && model.aspectRatios.length && !model.aspectRatios.includes(body.ratio)) {
    throw new ServiceError('MCP_PARAMETER_INVALID', `ratio ${body.ratio} is not one of ${model.id}'s: ${model.aspectRatios.join(', ')}.`, {
      details: { field: 'ratio', model: model.id, valid: model.aspectRatios },
    });
  }
  const given = body.parameters ?? {};
  for (const [name, value] of Object.entries(given))
    checkParameter(
      model,
      model.parameters.find((entry) => entry.name === name),
      name,
      value,
    );
  const inputs = await inputsOf(ctx, body, model);

  const parameters =
    mcp.rules?.(
      model.id,
      given,
      inputs.map((input) => input.role),
    ) ?? given;
  const request: McpJobRequest = {
    lane: lane as McpJobRequest['lane'],
    media,
    prompt,
    model: model.id,
    ratio: body.ratio ?? null,
    parameters,
    inputs,
  };
  return { requestId, kind: 'mcp', lane, model: model.id, request };
}
