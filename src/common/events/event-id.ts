import { randomBytes } from 'node:crypto';

// Event ids are `<runId>-<seq>`: runId is random per channel (so per process
// start), seq counts from 1. A cursor from another run can never be mistaken
// for one of ours. A replay_gap notice has id `<runId>-<seq>-gap`, naming the
// position just before the first event replayed after it, so resuming from the
// notice's id is the same as resuming from that position.

export interface Cursor {
  readonly runId: string;
  readonly seq: number;
}

const CURSOR_PATTERN = /^([0-9a-z]{1,32})-(\d{1,15})(?:-gap)?$/;

export const newRunId = (): string => randomBytes(5).toString('hex');

export const eventId = (runId: string, seq: number): string => `${runId}-${seq}`;

export const gapId = (runId: string, seq: number): string => `${runId}-${seq}-gap`;

/** The position a client's Last-Event-ID names, or undefined when it is not an id we issue. */
export function parseCursor(text: string): Cursor | undefined {
  const match = CURSOR_PATTERN.exec(text);
  return match ? { runId: match[1], seq: Number(match[2]) } : undefined;
}
