import { maskSecrets } from '../../common/secrets.js';
import type { AgentReport, DoneEvent, DoneStatus } from '../agents/types.js';

/** A stop we asked for (cancel, steer, timeout, shutdown); it decides the status over anything else. */
export interface StopRequest {
  status: Extract<DoneStatus, 'cancelled' | 'interrupted' | 'timeout'>;
  reason: string;
}

export interface RunFacts {
  stopped?: StopRequest;
  /** The program could not be started (ENOENT, EACCES...). */
  spawnError?: string;
  report?: AgentReport;
  exitCode: number | null;
  signal: string | null;
  stderrTail: string;
}

/** Longest `reason` a done carries. */
export const REASON_MAX_CHARS = 300;

function lastStderrLine(stderr: string): string | undefined {
  const lines = stderr
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);
  const last = lines.at(-1);
  return last ? maskSecrets(last).slice(0, REASON_MAX_CHARS) : undefined;
}

/** The one place that decides how a run ended. */
export function resolveDone(facts: RunFacts): DoneEvent {
  if (facts.stopped) return { type: 'done', status: facts.stopped.status, reason: facts.stopped.reason };
  if (facts.spawnError) return { type: 'done', status: 'error', reason: `could not start the agent program: ${facts.spawnError}` };
  if (facts.report?.status === 'error') {
    return {
      type: 'done',
      status: 'error',
      reason: maskSecrets(facts.report.reason ?? 'the agent reported an error').slice(0, REASON_MAX_CHARS),
    };
  }
  const exit = facts.signal ? `was killed by ${facts.signal}` : `exited with code ${facts.exitCode}`;
  if (facts.report?.status === 'ok') {
    return facts.exitCode === 0
      ? { type: 'done', status: 'ok' }
      : { type: 'done', status: 'error', reason: `reported success but ${exit}` };
  }
  const detail = lastStderrLine(facts.stderrTail);
  if (facts.exitCode === 0) return { type: 'done', status: 'error', reason: 'exited without a final result line' };
  return { type: 'done', status: 'crashed', reason: `the agent program ${exit}${detail ? `: ${detail}` : ''}` };
}
