import { ServiceError } from '../errors.js';
import { issueMessage } from '../../common/issue-message.js';
import {
  DEFAULT_TRACE_PRESET,
  TRACE_PARAMETERS,
  TRACE_PRESET_NAMES,
  TRACE_PRESETS,
  type TraceParameters,
  type TracePresetName,
} from './presets.js';

// A trace request's preset and parameter overrides, checked against their
// ranges: by the studio when it plans a trace job, and by `svc trace` before it
// uploads a local file (a refused request uploads nothing). Pure: no store, no I/O.

export const TRACE_PARAMETER_NAMES = Object.keys(TRACE_PARAMETERS) as (keyof TraceParameters)[];

/** The preset's parameters with the request's overrides, each checked against its range. */
export function traceParameters(
  named: string | undefined,
  overrides: Readonly<Record<string, unknown>>,
): { preset: TracePresetName; parameters: TraceParameters } {
  const preset = TRACE_PRESET_NAMES.find((name) => name === (named ?? DEFAULT_TRACE_PRESET));
  if (!preset) {
    throw new ServiceError('TRACE_PRESET_UNKNOWN', `Unknown tracing preset "${named}" (valid: ${TRACE_PRESET_NAMES.join(', ')}).`, {
      details: { field: 'preset', valid: TRACE_PRESET_NAMES },
    });
  }
  const parameters: TraceParameters = { ...TRACE_PRESETS[preset] };
  for (const name of TRACE_PARAMETER_NAMES) {
    if (overrides[name] === undefined) continue;
    const parsed = TRACE_PARAMETERS[name].safeParse(overrides[name]);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const valid =
        issue.code === 'invalid_value'
          ? issue.values
          : { min: (issue as { minimum?: unknown }).minimum, max: (issue as { maximum?: unknown }).maximum };
      throw new ServiceError('TRACE_PARAMETER_INVALID', `${name}: ${issueMessage(issue, overrides[name])}`, {
        details: { field: name, valid },
      });
    }
    Object.assign(parameters, { [name]: parsed.data });
  }
  return { preset, parameters };
}
