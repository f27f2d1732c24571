import { z } from 'zod';
import { ServiceError } from '../../common/errors.js';
import { COMMON_SIZES, IMAGE_FORMATS, MODERATIONS, QUALITIES, REASONING_EFFORTS, SIZE_RULE, sizeProblem } from '../catalog/controls.js';
import { LANE_IDS } from '../catalog/lanes.js';
import { LIMITS } from '../catalog/limits.js';

// Request bodies of the generation routes, validated against the catalog's
// values. A bad value answers 400 with the valid ones in `details`.

/** Printable ASCII without spaces: it travels in headers and URLs (`/api/inflight/:id`). */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:~-]{1,128}$/;

const size = z.string().superRefine((value, context) => {
  const problem = sizeProblem(value);
  if (problem) context.addIssue({ code: 'custom', message: problem });
});

/** Per-output overrides: one multimode slot. */
const slotFields = {
  provider: z.enum(LANE_IDS).optional(),
  model: z.string().min(1).optional(),
  quality: z.enum(QUALITIES).optional(),
  size: size.optional(),
  format: z.enum(IMAGE_FORMATS).optional(),
  moderation: z.enum(MODERATIONS).optional(),
  reasoning: z.enum(REASONING_EFFORTS).optional(),
};

const generationFields = {
  ...slotFields,
  prompt: z.string().trim().min(1).max(LIMITS.promptMaxChars),
  references: z.array(z.unknown()).optional(),
  requestId: z.string().regex(REQUEST_ID_PATTERN).optional(),
  async: z.boolean().optional(),
  /** false: the job keeps running when the client goes away, and its result lands in history. */
  cancelOnDisconnect: z.boolean().optional(),
  negativePrompt: z.string().max(LIMITS.promptMaxChars).optional(),
};

export const generateBody = z.object(generationFields).strict();
export const editBody = z.object({ ...generationFields, image: z.unknown(), mask: z.unknown().optional() }).strict();
export const multimodeBody = z
  .object({
    ...generationFields,
    outputs: z.array(z.object(slotFields).strict()).min(1).max(LIMITS.multimodeMaxOutputs).optional(),
    n: z.number().int().min(1).max(LIMITS.multimodeMaxOutputs).optional(),
  })
  .strict();

export type GenerateBody = z.infer<typeof generateBody>;
export type EditBody = z.infer<typeof editBody>;
export type MultimodeBody = z.infer<typeof multimodeBody>;

/** What a client can send instead, per field, for the 400 answer's details. */
const VALID: Record<string, unknown> = {
  size: { examples: COMMON_SIZES, rule: SIZE_RULE },
  requestId: { pattern: REQUEST_ID_PATTERN.source },
  prompt: { minLength: 1, maxLength: LIMITS.promptMaxChars },
  n: { min: 1, max: LIMITS.multimodeMaxOutputs },
  outputs: { minItems: 1, maxItems: LIMITS.multimodeMaxOutputs },
};

/** Parses a body or throws BAD_REQUEST naming the field and what is valid for it. */
export function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue.path.map(String).join('.') || undefined;
  const details: Record<string, unknown> = { field };
  if (issue.code === 'invalid_value') details.valid = issue.values;
  else if (issue.code === 'unrecognized_keys') {
    details.unknown = issue.keys;
    // Unknown keys inside `outputs[i]` are checked against the slot fields.
    details.valid = issue.path.length > 0 ? Object.keys(slotFields) : Object.keys((schema as unknown as { shape?: Record<string, unknown> }).shape ?? {});
  } else {
    const leaf = issue.path[issue.path.length - 1];
    const known = typeof leaf === 'string' ? VALID[leaf] : undefined;
    if (known !== undefined) details.valid = known;
  }
  const message = field ? `${field}: ${issue.message}` : issue.message;
  throw new ServiceError('BAD_REQUEST', message, { details });
}
