// Goal markers in an agent's output. The agent cannot run server commands, so
// it says "done" or "pause" by writing a marker at the start of a line:
//
//   [goal:done] evidence: <what shows it is done>
//   [goal:pause] <why it must stop>
//
// Only markers that start a line count, so a prompt that mentions them in a
// sentence (and an answer quoting that prompt) is not taken for one.

export interface DoneMarker {
  /** Empty when the marker carried no evidence. */
  evidence: string;
}

export interface PauseMarker {
  reason: string;
}

export interface GoalMarkers {
  /** The last done marker. */
  done?: DoneMarker;
  /** The last pause marker. */
  pause?: PauseMarker;
}

const MARKER = /^[ \t]*\[goal:(done|pause)\][ \t]*(.*)$/gm;
const DEFAULT_PAUSE_REASON = 'the agent asked to pause';

export function scanGoalMarkers(text: string): GoalMarkers {
  const markers: GoalMarkers = {};
  for (const [, kind, rest] of text.matchAll(MARKER)) {
    const value = rest.trim();
    if (kind === 'done') markers.done = { evidence: value.replace(/^evidence:\s*/i, '').trim() };
    else markers.pause = { reason: value.replace(/^reason:\s*/i, '').trim() || DEFAULT_PAUSE_REASON };
  }
  return markers;
}

/** How the continuation prompt explains the markers (mid-sentence, so quoting it back is no marker). */
export const MARKER_INSTRUCTIONS =
  'When the goal is complete, end your answer with a line that starts with the marker [goal:done] followed by "evidence:" and what shows it is done. ' +
  'If you cannot go on without a person, end with a line that starts with the marker [goal:pause] followed by the reason.';
