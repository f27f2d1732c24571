import { ServiceError } from './errors.js';
import { AGENTS, isAgentId, type AgentId } from './agents/catalog.js';
import { agentEnvironment } from './agents/environment.js';
import type { DoneEvent, NormalizedEvent, OutputEvent } from './agents/types.js';
import type { ChatConfig } from './config.js';
import { splitUtf8, type ChatEvents, type QueueState } from './events.js';
import { CHAT_LIMITS } from './limits.js';
import { AgentProcess, type RunEnd } from './runs/agent-process.js';
import { maskSecrets } from '../common/secrets.js';
import { REASON_MAX_CHARS, type StopRequest } from './runs/run-outcome.js';
import type { AgentProcessRecords } from './store/agent-process-records.js';
import type { ChatMessage, ChatSession, ChatStore } from './store/chat-store.js';
import { RunQueueRecords, type RunRecord } from './store/run-queue-records.js';
import { newTraceId } from './traces/trace-id.js';
import { TraceWriter } from './traces/trace-writer.js';

/**
 * Where a prompt went and how many runs are ahead of it. Told to the run's
 * listener first; the HTTP routes put it in response headers (the NDJSON
 * stream itself holds only the spec's four line types).
 */
export interface AcceptedLine {
  type: 'accepted';
  sessionId: string;
  traceId: string;
  messageId: string;
  agent: AgentId;
  /** Runs before this one in its session (the active one included). */
  ahead: number;
}

/** What a run tells its listener, in order: accepted, output events, done. */
export type RunLine = AcceptedLine | NormalizedEvent;
export type RunListener = (line: RunLine) => void;

/** Who started a run: a person (message, /steer), a goal's automatic continuation, or an orchestration phase. */
export type RunOrigin = 'user' | 'goal' | 'orc';

export interface PromptInput {
  prompt: string;
  sessionId?: string;
  agent?: AgentId;
  /** Default `user`. */
  origin?: RunOrigin;
  /** An automatic turn's description for people (saved with its message). */
  label?: string;
}

/** A run that ended, for the goal and orchestration logic (after the queue moved on). */
export interface RunEnded {
  readonly sessionId: string;
  readonly traceId: string;
  readonly agent: AgentId;
  readonly origin: RunOrigin;
  readonly done: DoneEvent;
  /** The answer text (also what a stopped run produced so far). */
  readonly text: string;
}
export type RunEndedListener = (ended: RunEnded) => void;

interface QueuedRun {
  readonly traceId: string;
  readonly sessionId: string;
  readonly agent: AgentId;
  readonly prompt: string;
  readonly messageId: string;
  readonly origin: RunOrigin;
  readonly listeners: Set<RunListener>;
  readonly trace: TraceWriter;
}

interface ActiveRun {
  readonly run: QueuedRun;
  readonly startedAt: string;
  process?: AgentProcess;
  /** Text output so far: the assistant message, also when the run is stopped. */
  text: string;
  /** Output events so far (text, thinking, tools). */
  outputs: number;
  /** The first stop asked for (cancel, steer, shutdown), even one that came too late to change the outcome. */
  stopRequest?: StopRequest;
  /** Set by finish(): the run's done was delivered. */
  ended?: boolean;
  /** The done the run ended with (set by finish()). */
  final?: DoneEvent;
  /** Settles (never rejects) once the run ended and the queue moved on. */
  finished?: Promise<void>;
}

interface SessionQueue {
  active?: ActiveRun;
  pending: QueuedRun[];
}

export interface ActiveRunStatus {
  traceId: string;
  agent: AgentId;
  startedAt: string;
  pid?: number;
}

export interface SessionQueueStatus {
  sessionId: string;
  active: ActiveRunStatus | null;
  pending: number;
}

/** What /cancel did: `cancelled` only when it stopped a running program. */
export interface CancelResult {
  cancelled: boolean;
  /** The session's active run, when there is one. */
  traceId?: string;
}

export interface Accepted {
  accepted: AcceptedLine;
  /** Stops delivering lines to the listener (the run goes on). */
  detach(): void;
}

const SHUTDOWN: StopRequest = { status: 'cancelled', reason: 'the server is shutting down' };

/** How a run that was running when its server was killed ends at the next start. */
const cutByRestart = (traceId: string): DoneEvent => ({
  type: 'done',
  status: 'interrupted',
  reason: `the chat server stopped while this run was running; its output so far is in trace ${traceId}`,
});

/** The answer as stored: whole up to the cap, else its start and a note (the trace keeps all of it). */
export function storedAnswer(text: string, traceId: string): string {
  const bytes = Buffer.byteLength(text);
  if (bytes <= CHAT_LIMITS.messageStoredMaxBytes) return text;
  const [head] = splitUtf8(text, CHAT_LIMITS.messageStoredMaxBytes);
  return `${head}\n\n[answer cut at ${CHAT_LIMITS.messageStoredMaxBytes} of ${bytes} bytes; the whole output is in trace ${traceId}]`;
}

/** Failures the service survives (an answer not saved, a broken publish) still reach the operator. */
function logFailure(what: string, error: unknown): void {
  process.stderr.write(`svc-chat: ${what}: ${maskSecrets((error as Error)?.message ?? String(error))}\n`);
}

/**
 * Runs prompts through agent programs: one active run per session, later
 * prompts wait in order; every run is traced, its output published, its
 * answer saved. Cancel and steer stop the active run; the queue then moves on.
 */
export class ChatService {
  private readonly queues = new Map<string, SessionQueue>();
  private readonly runEndedListeners = new Set<RunEndedListener>();
  /** The queue as chat.db keeps it, so that a SIGKILL leaves no run without a status. */
  private readonly runQueue: RunQueueRecords;
  private closing = false;

  constructor(
    readonly config: ChatConfig,
    readonly store: ChatStore,
    readonly events: ChatEvents,
    private readonly env: Readonly<Record<string, string | undefined>>,
    private readonly processes?: AgentProcessRecords,
  ) {
    this.runQueue = new RunQueueRecords(store.db);
  }

  /**
   * Start-up, before anything new is accepted: the runs a killed server left
   * behind. The one that was running in a session ends `interrupted` (an
   * assistant message saying so, published like any end); the ones waiting
   * behind it run again in their order. Its agents were reaped before this.
   */
  recover(): { interrupted: string[]; requeued: string[] } {
    const report = { interrupted: [] as string[], requeued: [] as string[] };
    for (const record of this.runQueue.takeOver()) {
      const run = this.recoveredRun(record);
      if (record.startedAt !== null) {
        this.finish({ run, startedAt: record.startedAt, text: '', outputs: 0 }, cutByRestart(run.traceId));
        report.interrupted.push(run.traceId);
      } else {
        run.trace.write('requeued', { reason: 'the chat server restarted before this run started' });
        this.queueOf(run.sessionId).pending.push(run);
        report.requeued.push(run.traceId);
      }
    }
    for (const sessionId of [...this.queues.keys()]) {
      this.events.queue(sessionId, this.queueState(sessionId));
      this.startNext(sessionId);
    }
    return report;
  }

  /** Called after every run ended and its session's queue moved past it. Returns the unsubscribe. */
  onRunEnded(listener: RunEndedListener): () => void {
    this.runEndedListeners.add(listener);
    return () => this.runEndedListeners.delete(listener);
  }

  /** No run active or waiting in the session. */
  isIdle(sessionId: string): boolean {
    const queue = this.queues.get(sessionId);
    return !queue?.active && (queue?.pending.length ?? 0) === 0;
  }

  /** Trace ids of every run active or waiting (their trace files are in use). */
  liveTraceIds(): Set<string> {
    const ids = new Set<string>();
    for (const queue of this.queues.values()) {
      if (queue.active) ids.add(queue.active.run.traceId);
      for (const run of queue.pending) ids.add(run.traceId);
    }
    return ids;
  }

  get isClosing(): boolean {
    return this.closing;
  }

  /** A session id from a request, or the current session. Unknown ids are a 404. */
  resolveSession(sessionId: string | undefined): string {
    if (sessionId === undefined) return this.store.currentSessionId();
    if (!this.store.getSession(sessionId)) throw new ServiceError('NOT_FOUND', `No session ${sessionId}.`, { details: { sessionId } });
    return sessionId;
  }

  /** Queues a prompt behind its session's runs. */
  submit(input: PromptInput, listener: RunListener = () => {}): Accepted {
    return this.accept(input, listener, false);
  }

  /** Stops the session's active run (keeping its partial answer) and runs this prompt next. */
  steer(input: PromptInput, listener: RunListener): Accepted {
    return this.accept(input, listener, true);
  }

  /**
   * Stops the session's active run; the queue moves on. Not `cancelled` when
   * the program had already finished on its own (its outcome stands) or a stop
   * is already under way.
   */
  cancel(sessionId: string): CancelResult {
    const active = this.queues.get(sessionId)?.active;
    if (!active) return { cancelled: false };
    return { cancelled: this.stop(active, { status: 'cancelled', reason: 'cancelled by /cancel' }), traceId: active.run.traceId };
  }

  /**
   * Takes a waiting run out of its session's queue before it starts: it ends
   * `cancelled` (its answer says so) and the queue's state is published.
   * NOT_FOUND when no such run waits (it started, ended, or never was).
   */
  withdraw(sessionId: string, traceId: string): void {
    const queue = this.queues.get(sessionId);
    const index = queue?.pending.findIndex((run) => run.traceId === traceId) ?? -1;
    if (!queue || index < 0) throw new ServiceError('NOT_FOUND', `No waiting run ${traceId} in session ${sessionId}.`);
    const [run] = queue.pending.splice(index, 1);
    this.finishUnstarted(run, { status: 'cancelled', reason: 'removed from the queue before it started' });
    this.events.queue(sessionId, this.queueState(sessionId));
  }

  /**
   * SIGKILLs every active run's process tree at once, synchronously: for the
   * process `exit` hook, when the server goes down without a graceful close.
   */
  killActiveNow(): void {
    for (const queue of this.queues.values()) queue.active?.process?.killNow();
  }

  queueState(sessionId: string): QueueState {
    const queue = this.queues.get(sessionId);
    const state: QueueState = { pending: queue?.pending.length ?? 0, active: Boolean(queue?.active) };
    if (queue?.active) state.activeTraceId = queue.active.run.traceId;
    return state;
  }

  /** Sessions with an active or waiting run. */
  queueStatus(): SessionQueueStatus[] {
    return [...this.queues.entries()]
      .filter(([, queue]) => queue.active || queue.pending.length > 0)
      .map(([sessionId, queue]) => ({
        sessionId,
        pending: queue.pending.length,
        active: queue.active
          ? {
              traceId: queue.active.run.traceId,
              agent: queue.active.run.agent,
              startedAt: queue.active.startedAt,
              pid: queue.active.process?.pid,
            }
          : null,
      }));
  }

  createSession(title: string | undefined, makeCurrent: boolean): ChatSession {
    this.assertOpen();
    const session = this.store.createSession(title);
    if (makeCurrent) this.switchSession(session.id);
    return session;
  }

  renameSession(sessionId: string, title: string): ChatSession {
    const id = this.resolveSession(sessionId);
    this.store.renameSession(id, title);
    return this.store.getSession(id) as ChatSession;
  }

  /**
   * Deletes a session and its messages. SESSION_BUSY while a run of it is
   * running or waiting (`busyWith` names what else keeps it, for the caller's
   * goal and orchestration). The current one is replaced by the most recent
   * other session (or a new one), published as session_switched.
   */
  deleteSession(sessionId: string, busyWith?: string): void {
    const id = this.resolveSession(sessionId);
    const queue = this.queues.get(id);
    const busy = queue?.active ? 'an answer is running' : queue && queue.pending.length > 0 ? 'messages are waiting' : busyWith;
    if (busy) throw new ServiceError('SESSION_BUSY', `Session ${id} cannot be deleted: ${busy}.`, { details: { sessionId: id } });
    const wasCurrent = this.store.currentSessionId() === id;
    this.store.deleteSession(id);
    this.queues.delete(id);
    if (wasCurrent) this.events.sessionSwitched(this.store.currentSessionId());
  }

  switchSession(sessionId: string): ChatSession {
    const session = this.store.getSession(this.resolveSession(sessionId));
    if (!session) throw new ServiceError('NOT_FOUND', `No session ${sessionId}.`);
    this.store.setCurrentSession(session.id);
    this.events.sessionSwitched(session.id);
    return session;
  }

  /** Shutdown: waiting runs end `cancelled` without starting, active ones are stopped; resolves when all have ended. */
  async close(): Promise<void> {
    this.closing = true;
    const finishing: Promise<void>[] = [];
    for (const queue of this.queues.values()) {
      // One run that cannot be ended cleanly must not keep the others from ending.
      for (const run of queue.pending.splice(0)) {
        try {
          this.finishUnstarted(run, SHUTDOWN);
        } catch (error) {
          logFailure(`run ${run.traceId} did not end cleanly at shutdown`, error);
        }
      }
      if (queue.active) {
        try {
          this.stop(queue.active, SHUTDOWN);
        } catch (error) {
          logFailure(`run ${queue.active.run.traceId} could not be stopped`, error);
        }
        if (queue.active.finished) finishing.push(queue.active.finished);
      }
    }
    await Promise.all(finishing);
  }

  private assertOpen(): void {
    if (this.closing) throw new ServiceError('SERVICE_UNAVAILABLE', 'The chat server is shutting down.');
  }

  private queueOf(sessionId: string): SessionQueue {
    let queue = this.queues.get(sessionId);
    if (!queue) this.queues.set(sessionId, (queue = { pending: [] }));
    return queue;
  }

  private accept(input: PromptInput, listener: RunListener, steer: boolean): Accepted {
    this.assertOpen();
    const sessionId = this.resolveSession(input.sessionId);
    const waiting = this.queues.get(sessionId)?.pending.length ?? 0;
    if (waiting >= CHAT_LIMITS.pendingMaxPerSession) {
      throw new ServiceError('SERVICE_UNAVAILABLE', `Session ${sessionId} already has ${waiting} waiting messages.`);
    }
    const agent = input.agent ?? this.config.defaultAgent;
    const traceId = newTraceId();
    const origin = input.origin ?? 'user';
    // The prompt and its place in the queue are saved together: a crash keeps both or neither.
    const message = this.store.db.transaction(() => {
      const automatic =
        origin === 'user'
          ? undefined
          : { origin, label: (input.label ?? `automatic ${origin} turn`).slice(0, CHAT_LIMITS.automaticLabelMaxChars) };
      const saved = this.store.addMessage({ sessionId, role: 'user', content: input.prompt, agent, traceId, automatic });
      this.runQueue.add({ traceId, sessionId, messageId: saved.id, agent, origin }, steer ? 'front' : 'back');
      return saved;
    })();
    // Only a saved prompt joins the queue (a failed save leaves no empty queue behind).
    const queue = this.queueOf(sessionId);
    const run: QueuedRun = {
      traceId,
      sessionId,
      agent,
      prompt: input.prompt,
      messageId: message.id,
      origin,
      listeners: new Set([listener]),
      trace: new TraceWriter(this.config.tracesDir, traceId, this.config.traceMaxBytes),
    };
    run.trace.write('queued', { sessionId, agent, messageId: message.id, prompt: input.prompt, steer, origin: run.origin });

    const ahead = steer ? (queue.active ? 1 : 0) : queue.pending.length + (queue.active ? 1 : 0);
    if (steer) queue.pending.unshift(run);
    else queue.pending.push(run);
    const accepted: AcceptedLine = { type: 'accepted', sessionId, traceId, messageId: message.id, agent, ahead };
    listener(accepted);

    this.events.message(message);
    if (steer) this.events.steerStarted(sessionId, traceId, input.prompt);
    this.events.queue(sessionId, this.queueState(sessionId));
    if (steer && queue.active) this.stop(queue.active, { status: 'interrupted', reason: 'steered: a new prompt took over' });
    this.startNext(sessionId);
    return { accepted, detach: () => run.listeners.delete(listener) };
  }

  /** Asks the active run to stop; true when that stopped a running program (and so decides its status). */
  private stop(active: ActiveRun, request: StopRequest): boolean {
    if (active.ended) return false;
    active.stopRequest ??= request;
    const stopped = active.process?.stop(request) ?? false;
    active.run.trace.write('stop', { ...request, effective: stopped });
    return stopped;
  }

  private startNext(sessionId: string): void {
    const queue = this.queueOf(sessionId);
    if (queue.active || this.closing) return;
    const run = queue.pending.shift();
    if (!run) return;
    const active: ActiveRun = { run, startedAt: new Date().toISOString(), text: '', outputs: 0 };
    queue.active = active;
    try {
      this.runQueue.markStarted(run.traceId);
    } catch (error) {
      // Only a restart reads it (it would run the prompt again rather than mark it interrupted).
      logFailure(`the start of run ${run.traceId} was not recorded`, error);
    }
    this.events.queue(sessionId, this.queueState(sessionId));
    active.finished = this.execute(active)
      .catch((error: unknown) => {
        logFailure(`run ${run.traceId} failed`, error);
        this.finish(active, {
          type: 'done',
          status: 'error',
          reason: `internal error: ${maskSecrets((error as Error)?.message ?? String(error)).slice(0, REASON_MAX_CHARS)}`,
        });
      })
      .finally(() => {
        queue.active = undefined;
        this.events.queue(sessionId, this.queueState(sessionId));
        // Goals and orchestration react here: they may queue (and so start) the next run.
        if (active.final) this.notifyRunEnded(run, active.final, active.text);
        if (queue.active) return;
        if (queue.pending.length === 0) this.queues.delete(sessionId);
        else this.startNext(sessionId);
      })
      // Nothing of a run may take the server down: whatever is left is logged.
      .catch((error: unknown) => logFailure(`the queue of session ${sessionId} failed after run ${run.traceId}`, error));
  }

  private notifyRunEnded(run: QueuedRun, done: DoneEvent, text: string): void {
    const ended: RunEnded = { sessionId: run.sessionId, traceId: run.traceId, agent: run.agent, origin: run.origin, done, text };
    for (const listener of this.runEndedListeners) {
      try {
        listener(ended);
      } catch (error) {
        logFailure(`a reaction to the end of run ${run.traceId} failed`, error);
      }
    }
  }

  private deliver(run: QueuedRun, line: RunLine): void {
    for (const listener of run.listeners) {
      try {
        listener(line);
      } catch {
        // A broken listener (a gone client) must not stop the run.
        run.listeners.delete(listener);
      }
    }
  }

  private async execute(active: ActiveRun): Promise<void> {
    const { run } = active;
    const spec = AGENTS[run.agent];
    // From now on the run writes many lines: keep its trace file open.
    run.trace.hold();
    let resumeId = spec.adapter.resumes ? this.store.nativeSessionId(run.sessionId, run.agent) : undefined;
    for (;;) {
      const outputsBefore = active.outputs;
      const { end, nativeSessionId } = await this.attempt(active, resumeId);
      if (nativeSessionId) this.store.setNativeSessionId(run.sessionId, run.agent, nativeSessionId);
      // A resumed program that failed on its own before announcing its conversation
      // most likely no longer has it (cleaned up, another machine): forget the id so the
      // session is not stuck, and run the prompt once more as a new conversation.
      const failedOnItsOwn = (end.done.status === 'error' || end.done.status === 'crashed') && end.exitCode !== null && end.exitCode !== 0;
      const staleResume = resumeId !== undefined && !nativeSessionId && failedOnItsOwn;
      if (staleResume) {
        this.store.clearNativeSessionId(run.sessionId, run.agent);
        run.trace.write('resume_failed', { resumeId, status: end.done.status, reason: end.done.reason });
        if (!active.stopRequest && !this.closing && active.outputs === outputsBefore) {
          resumeId = undefined;
          continue;
        }
      }
      this.finish(active, end.done);
      return;
    }
  }

  /** One start of the run's program; a failed resume may take a second. */
  private async attempt(active: ActiveRun, resumeId: string | undefined): Promise<{ end: RunEnd; nativeSessionId: string | undefined }> {
    const { run } = active;
    const spec = AGENTS[run.agent];
    const program = this.config.programs[run.agent];
    const normalizer = spec.adapter.createNormalizer();
    run.trace.write('started', { agent: run.agent, program: program.file, cwd: this.config.workDir, resumed: resumeId !== undefined });

    const onEvent = (event: OutputEvent) => {
      active.outputs += 1;
      if (event.type === 'text') active.text += event.content;
      const { type, ...fields } = event;
      run.trace.write(type, fields);
      this.events.output(run.sessionId, run.traceId, event);
      this.deliver(run, event);
    };
    const agentProcess = new AgentProcess({
      program,
      args: spec.adapter.args(run.prompt, { resumeId }),
      cwd: this.config.workDir,
      env: agentEnvironment(this.env, spec, this.config.agentEnvNames),
      timeoutMs: this.config.runTimeoutMs,
      killGraceMs: this.config.killGraceMs,
      exitDrainMs: this.config.exitDrainMs,
      maxLineBytes: this.config.maxLineBytes,
      stderrTailBytes: CHAT_LIMITS.stderrTailBytes,
      normalizer,
      onEvent,
      onSkip: (kind, sample) => run.trace.write('skipped_line', { kind, sample }),
    });
    active.process = agentProcess;
    run.trace.write('spawned', { pid: agentProcess.pid ?? null });
    // Recorded so that a server killed without cleanup (SIGKILL) reaps the group at its next start.
    if (agentProcess.pid !== undefined) this.processes?.record(run.traceId, agentProcess.pid);

    let end: RunEnd;
    try {
      end = await agentProcess.finished;
    } finally {
      this.processes?.forget(run.traceId);
    }
    run.trace.write('exit', { exitCode: end.exitCode, signal: end.signal, lines: end.stats });
    return { end, nativeSessionId: normalizer.nativeSessionId };
  }

  /**
   * Saves the answer, publishes it and the done, ends the listeners' streams.
   * Runs once per run and never throws: an answer that cannot be saved turns
   * the done into `error`, and the done is still published and delivered.
   */
  private finish(active: ActiveRun, done: DoneEvent): void {
    if (active.ended) return;
    active.ended = true;
    const { run } = active;
    active.final = done;
    let final = done;
    let message: ChatMessage | undefined;
    try {
      // The answer and the run's leaving the queue are one write: a crash keeps both or neither.
      message = this.store.db.transaction(() => {
        const saved = this.store.addMessage({
          sessionId: run.sessionId,
          role: 'assistant',
          content: storedAnswer(active.text, run.traceId),
          agent: run.agent,
          traceId: run.traceId,
          status: done.status,
          reason: done.reason,
        });
        this.runQueue.remove(run.traceId);
        return saved;
      })();
    } catch (error) {
      logFailure(`the answer of run ${run.traceId} was not saved`, error);
      const outcome = `${done.status}${done.reason ? `: ${done.reason}` : ''}`;
      const reason = `answer not saved (${maskSecrets((error as Error)?.message ?? String(error))}); the run ended ${outcome}`;
      final = { type: 'done', status: 'error', reason: reason.slice(0, REASON_MAX_CHARS) };
    }
    active.final = final;
    this.closeRun(run, final);
    try {
      if (message) this.events.message(message);
      this.events.done(run.sessionId, run.traceId, final);
    } catch (error) {
      logFailure(`the end of run ${run.traceId} was not published`, error);
    }
    this.deliver(run, final);
  }

  /** A waiting run that never starts (shutdown) still gets its answer record and done. */
  private finishUnstarted(run: QueuedRun, request: StopRequest): void {
    this.finish(
      { run, startedAt: new Date().toISOString(), text: '', outputs: 0 },
      { type: 'done', status: request.status, reason: request.reason },
    );
  }

  /** A run of the durable queue, as this server holds it (no listener: its client left with the old server). */
  private recoveredRun(record: RunRecord): QueuedRun {
    const origin: RunOrigin = record.origin === 'goal' || record.origin === 'orc' ? record.origin : 'user';
    return {
      traceId: record.traceId,
      sessionId: record.sessionId,
      agent: record.agent !== null && isAgentId(record.agent) ? record.agent : this.config.defaultAgent,
      prompt: record.prompt,
      messageId: record.messageId,
      origin,
      listeners: new Set(),
      trace: new TraceWriter(this.config.tracesDir, record.traceId, this.config.traceMaxBytes),
    };
  }

  private closeRun(run: QueuedRun, done: DoneEvent): void {
    run.trace.write('done', { status: done.status, reason: done.reason });
    run.trace.close();
  }
}
