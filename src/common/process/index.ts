// Running programs: one PATH lookup rule, process groups, time budgets.
export { findExecutable } from './find-executable.js';
export { signalProcessGroup } from './process-tree.js';
export {
  TreeProcess,
  startTreeProcess,
  DEFAULT_KILL_GRACE_MS,
  DEFAULT_EXIT_DRAIN_MS,
  type TreeProcessOptions,
  type TreeProcessEnd,
  type StopCause,
} from './tree-process.js';
export { runProcess, DEFAULT_MAX_OUTPUT_BYTES, type RunProcessOptions, type RunProcessResult } from './run-process.js';
export {
  recordProcessGroup,
  reapProcessGroup,
  isRecordedProcessRunning,
  type ProcessGroupRecord,
  type ReapOutcome,
} from './leftover-groups.js';
