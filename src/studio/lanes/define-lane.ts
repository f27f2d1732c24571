import type { z } from 'zod';
import { ServiceError } from '../errors.js';
import type { LaneAdapter, LaneImageRequest, LaneModule, LaneOptionValues } from './types.js';
import { issueMessage } from '../../common/issue-message.js';

// A lane's own options, typed once. A lane with options is written against
// its schema (`LaneModule<typeof options>`: the adapter receives
// `z.output<typeof options>`), and `defineLane` turns it into the registry's
// `LaneModule`, whose adapter takes options by name: the one place they are
// erased is where they are validated, so the lane never sees an unchecked one
// (a job stored by an older build included).

/** A lane whose adapter takes typed options, as the registry holds it. A lane without options is a plain LaneModule. */
export function defineLane<Options extends z.ZodObject>(lane: LaneModule<Options> & { readonly options: Options }): LaneModule {
  const { adapter } = lane;
  return { ...lane, adapter: adapter && validating(lane, adapter) };
}

function validating<Options extends z.ZodObject>(
  lane: LaneModule<Options> & { readonly options: Options },
  adapter: LaneAdapter<z.output<Options>>,
): LaneAdapter {
  const typed = (request: LaneImageRequest): LaneImageRequest<z.output<Options>> => {
    const parsed = lane.options.safeParse(request.options);
    if (!parsed.success) throw optionsError(lane, parsed.error, request.options);
    return { ...request, options: parsed.data };
  };
  const { generate, edit, steps } = adapter;
  return {
    ...adapter,
    generate: generate && ((ctx, request, job) => generate(ctx, typed(request), job)),
    edit: edit && ((ctx, request, job) => edit(ctx, typed(request), job)),
    steps: steps && {
      ...steps,
      start: (ctx, request, job) => steps.start(ctx, typed(request), job),
      status: (ctx, request, operation, job) => steps.status(ctx, typed(request), operation, job),
    },
  };
}

/** A request's options for `lane`, validated by its schema (the AI SDK's providerOptions, per lane); a lane without options takes none. */
export function parseLaneOptions(lane: LaneModule, options: LaneOptionValues | undefined): LaneOptionValues {
  if (!lane.options) {
    if (options && Object.keys(options).length > 0) {
      throw new ServiceError('LANE_UNSUPPORTED', `The ${lane.id} lane has no options.`, {
        details: { lane: lane.id, field: 'options', unknown: Object.keys(options) },
      });
    }
    return {};
  }
  const parsed = lane.options.safeParse(options ?? {});
  if (!parsed.success) throw optionsError(lane, parsed.error, options ?? {});
  return parsed.data;
}

/** The answer to a bad option: the lane's code for that option, else BAD_REQUEST, naming the field. */
function optionsError(lane: Pick<LaneModule, 'id' | 'codes' | 'options'>, error: z.ZodError, input: unknown): ServiceError {
  const issue = error.issues[0];
  const field = ['options', ...issue.path.map(String)].join('.');
  const details: Record<string, unknown> = { lane: lane.id, field };
  if (issue.code === 'invalid_value') details.valid = issue.values;
  if (issue.code === 'unrecognized_keys') Object.assign(details, { unknown: issue.keys, valid: Object.keys(lane.options?.shape ?? {}) });
  const valid = issue.code === 'unrecognized_keys' ? ` (valid: ${Object.keys(lane.options?.shape ?? {}).join(', ')})` : '';
  return new ServiceError(lane.codes.options?.[String(issue.path[0])] ?? 'BAD_REQUEST', `${field}: ${issueMessage(issue, input)}${valid}`, {
    details,
  });
}
