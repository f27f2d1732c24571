import type { CommonControl, LaneWarning } from '../api/index.js';
import type { LaneModule } from '../lanes/types.js';

// What happens to a common control a lane lacks. What the spec says a lane
// does not have is refused (LANE_UNSUPPORTED: beta-api's quality, format and
// moderation, cligen's quality and size; a lane-only control such as
// `negativePrompt`, "epsilon lane only", anywhere it is not taken). Any other
// common control the lane lacks, where the spec is silent, is dropped and
// reported as a warning, as the AI SDK reports unsupported call settings.
// Lane-specific controls stay in `options` (strict: unknown names refused).

/** Controls the spec gives to some lanes only: refused on a lane without them, never dropped. */
const LANE_ONLY_CONTROLS: readonly CommonControl[] = ['negativePrompt'];

export interface ControlVerdict {
  /** Sent but refused by this lane. */
  readonly refused: readonly CommonControl[];
  /** Sent, lacking here, dropped with a warning. */
  readonly dropped: readonly CommonControl[];
}

/** The verdict of a lane on the common controls a request sets. */
export function controlVerdict(lane: LaneModule, controls: readonly CommonControl[]): ControlVerdict {
  const lacking = controls.filter((control) => !lane.controls.includes(control));
  const refusedHere = (control: CommonControl) => LANE_ONLY_CONTROLS.includes(control) || (lane.refusedControls ?? []).includes(control);
  return { refused: lacking.filter(refusedHere), dropped: lacking.filter((control) => !refusedHere(control)) };
}

/** The warnings of the dropped controls. */
export const droppedWarnings = (lane: LaneModule, dropped: readonly CommonControl[]): LaneWarning[] =>
  dropped.map((field) => ({ type: 'unsupported', field, lane: lane.id }));
