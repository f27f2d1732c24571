// The chat server's limits and defaults, declared once; config, validation,
// docs and tests read them from here.
import { EVENT_CHANNEL_DEFAULTS } from '../common/events/channel.js';

export const CHAT_LIMITS = {
  /** Default port of `svc-chat serve` (the studio is 3333). */
  defaultPort: 3344,
  /** Largest request body (a prompt plus a little JSON). */
  requestBodyMaxBytes: 256 * 1024,
  /**
   * Longest prompt, in UTF-8 bytes. The prompt travels as one argv element and
   * Linux caps a single argument at 128 KiB, so stay well under it.
   */
  promptMaxBytes: 64 * 1024,
  /** One NDJSON line from an agent program; longer lines are dropped and counted. */
  agentLineMaxBytes: 1024 * 1024,
  /** A run that has not finished after this long is killed and ends with `timeout`. */
  runTimeoutMs: 20 * 60 * 1000,
  /** Longest delay a Node timer holds (2^31-1 ms, about 24.8 days); a longer run timeout would fire at once. */
  runTimeoutMaxMs: 2 ** 31 - 1,
  /** After SIGTERM, how long a process tree gets before SIGKILL. */
  killGraceMs: 3000,
  /** After the agent exits, how long its stdout may stay open (held by a grandchild) before the tree is killed. */
  exitDrainMs: 1000,
  /**
   * Bytes queued on one NDJSON response (a client not reading) before it is cut;
   * the run goes on. The event channel's per-connection budget.
   */
  streamMaxBufferedBytes: EVENT_CHANNEL_DEFAULTS.maxBufferedBytes,
  /** Bytes of stderr kept to explain a crash. */
  stderrTailBytes: 8 * 1024,
  /** Waiting messages per session; more are refused. */
  pendingMaxPerSession: 100,
  /** Traces listed by GET /api/traces at most (and by default). */
  tracesListMax: 1000,
  tracesListDefault: 100,
  /** Messages returned for one session by default / at most. */
  messagesListDefault: 200,
  messagesListMax: 1000,
  /** Longest session title (longer are cut). */
  sessionTitleMaxChars: 80,
  /** An automatic turn's label (shown on the page instead of its prompt), in characters. */
  automaticLabelMaxChars: 200,
  /** Goals kept in the history (the current one included); older ones are deleted. */
  goalHistoryMax: 50,
  /** Checkpoints (and earlier wordings) kept per goal, the latest ones. */
  goalCheckpointsMax: 50,
  /** Automatic goal continuation turns in a row before they stop (default). */
  goalMaxContinuations: 5,
  /** A goal untouched by a person for this long is stale: no more automatic turns (default 24 h). */
  goalStaleMs: 24 * 60 * 60 * 1000,
  /** Longest goal objective, checkpoint summary or evidence item, in characters. */
  goalTextMaxChars: 4000,
  /** Orchestration transitions kept. */
  orcTransitionsMax: 200,
  /** Traces older than this many days are deleted (default). */
  traceRetentionDays: 30,
  /** All trace files together at most this many bytes; the oldest go first (default 512 MiB). */
  tracesMaxBytes: 512 * 1024 * 1024,
  /** One trace file at most this many bytes; past it output lines are dropped (default 16 MiB). */
  traceMaxBytes: 16 * 1024 * 1024,
  /**
   * An answer is stored (and returned by the messages API and the `message` event) up to this many
   * UTF-8 bytes; the rest is cut with a note naming the trace, which keeps the whole output.
   */
  messageStoredMaxBytes: 256 * 1024,
  /** Least time between two trace sweeps after runs. */
  traceSweepIntervalMs: 60_000,
} as const;
