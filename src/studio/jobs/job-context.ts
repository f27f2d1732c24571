import { now, type EngineCore } from './engine.js';
import type { JobContext } from './handlers.js';
import type { RunningJob } from './running-job.js';
import { waitOrPark } from './wait.js';

// What a handler receives for one run of a job (JobContext): the stored facts,
// the signal, and the job's writes: phases (off the request's path), the
// billing checkpoint and the operation (awaited: durable before the next
// step), the vendor's state, its waits, and what it keeps across parks.

export function jobContext(core: EngineCore, job: RunningJob): JobContext {
  const { events, store } = core;
  const { requestId, kind } = job;
  /** A write of this job's row; a job that outlived the shutdown grace finds the store closed: nothing to record then. */
  const write = async (action: () => Promise<unknown>): Promise<void> => {
    if (store.open) await action();
  };
  /** A write nobody waits for: its failure is logged, never the job's. */
  const record = (action: () => Promise<unknown>): void => {
    write(action).catch((error: unknown) => console.error(`job ${requestId}: a write failed:`, error));
  };
  let phaseWrite: NodeJS.Immediate | undefined;
  const writePhase = () => {
    phaseWrite = undefined;
    record(() => store.setPhase(requestId, job.phase, now()));
  };
  // An ending job's last phase goes with its end; one detached at shutdown or parked stays unfinished, so its phase is written now.
  void job.settled.then(() => {
    if (!phaseWrite) return;
    clearImmediate(phaseWrite);
    phaseWrite = undefined;
    if (job.detached || job.parked) writePhase();
  });
  return {
    requestId,
    kind,
    lane: job.lane,
    model: job.model,
    request: job.request,
    inputs: job.inputs,
    operation: job.operation,
    deadline: job.deadline,
    polls: job.polls,
    signal: job.signal,
    get detached() {
      return job.detached;
    },
    events,
    phase(phase, fields = {}) {
      job.setPhase(phase);
      // The row follows within one turn of the loop, off the request's path (the upstream
      // call or the image write is under way by then); several phases in one turn write once.
      phaseWrite ??= setImmediate(writePhase);
      events.phase({ requestId, kind, phase, state: 'running', ...fields });
    },
    recordPhase(phase) {
      job.setPhase(phase);
      phaseWrite ??= setImmediate(writePhase);
    },
    partial({ index, b64, format, slot }) {
      events.partial({ requestId, kind, index, format, ...(slot !== undefined ? { slot } : {}) }, b64);
    },
    // Stored before the call is sent: a crash after it must not send it again.
    sending: () => write(() => store.markReachedUpstream(requestId, now())),
    async recordOperation(operation, id, state) {
      job.operation = operation;
      await write(() => store.setOperation(requestId, operation, id, state, now()));
    },
    upstreamState: (state) => record(() => store.setUpstreamState(requestId, state, now())),
    waitUntil: (at, polls = job.polls) => waitOrPark(core, job, at, polls),
    cancelConfirmed: (confirmed) => record(() => store.setCancelConfirmed(requestId, confirmed)),
    keep: <T extends object>(key: string, make: () => T): T => {
      let memory = core.kept.get(requestId);
      if (!memory) core.kept.set(requestId, (memory = new Map()));
      const found = memory.get(key);
      if (found) return found as T;
      const made = make();
      memory.set(key, made);
      return made;
    },
  };
}
