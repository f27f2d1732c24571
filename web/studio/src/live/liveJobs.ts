import { useQuery, type QueryClient } from '@tanstack/react-query';
import {
  jobSummary,
  parseSize,
  type AssetRecord,
  type ErrorPayload,
  type GenerationEvent,
  type InflightJob,
  type JobKind,
  type JobPhase,
  type JobRecord,
  type JobResult,
  type MultimodeResult,
  type VideoResult,
  type AgentTurn,
  type McpResult,
} from '../api/contract';

// Jobs as this page sees them: the ones it started and any it hears of on the
// event stream (the CLI's, another tab's). They are server state, kept in the
// query cache under one key and changed only by the pure functions below:
// events, the in-flight list and job records all land through them.

export type LiveStatus = 'running' | 'succeeded' | 'failed' | 'cancelled';

/** One output of a job: the only one of a generate/edit, one slot of a multimode batch. */
export interface LiveSlot {
  slot: number;
  phase?: JobPhase;
  provider?: string;
  model?: string;
  /** The newest partial render, as a data URL (live only: replays carry no bytes). */
  partial?: string;
  partialIndex?: number;
  image?: AssetRecord;
  revisedPrompt?: string;
  error?: ErrorPayload;
}

export interface LiveJob {
  requestId: string;
  kind: JobKind;
  /** Started by this page, or heard of (the CLI, another tab). */
  origin: 'here' | 'elsewhere';
  prompt?: string;
  provider?: string;
  model?: string;
  phase?: JobPhase;
  /** Phases seen, in order: the steps shown. */
  phases: JobPhase[];
  status: LiveStatus;
  slots: LiveSlot[];
  /** The size asked for, so image frames keep their shape from the start. */
  frame?: { width: number; height: number };
  result?: JobResult;
  error?: ErrorPayload;
  startedAt: string;
  /** Waiting for a slot: its place in the studio's queue (1 = next). */
  queuePosition?: number;
  cancelling?: boolean;
  /** The newest `progress` event as a fraction 0–1 (a video poll's `fraction`, a flow step's `value / max`). */
  progress?: number;
  /** Its prompt and slot count were read from GET /api/jobs/:id (jobs from elsewhere). */
  described?: boolean;
}

export const LIVE_JOBS_KEY = ['live-jobs'] as const;
/** Jobs kept on the page (the oldest finished ones go first). */
const KEEP = 24;

export const isRunning = (job: LiveJob): boolean => job.status === 'running';

export function useLiveJobs(): LiveJob[] {
  return useQuery<LiveJob[]>({ queryKey: LIVE_JOBS_KEY, queryFn: () => [], initialData: [], staleTime: Infinity, gcTime: Infinity }).data;
}

export function updateLiveJobs(queryClient: QueryClient, change: (jobs: LiveJob[]) => LiveJob[]): void {
  queryClient.setQueryData<LiveJob[]>(LIVE_JOBS_KEY, (jobs = []) => trim(change(jobs)));
}

export const liveJob = (queryClient: QueryClient, requestId: string): LiveJob | undefined =>
  queryClient.getQueryData<LiveJob[]>(LIVE_JOBS_KEY)?.find((job) => job.requestId === requestId);

function trim(jobs: LiveJob[]): LiveJob[] {
  if (jobs.length <= KEEP) return jobs;
  const finished = jobs.filter((job) => !isRunning(job));
  const drop = new Set(finished.slice(KEEP - jobs.length).map((job) => job.requestId));
  return jobs.filter((job) => !drop.has(job.requestId));
}

const emptySlots = (count: number): LiveSlot[] => Array.from({ length: Math.max(1, count) }, (_, slot) => ({ slot }));

/** A job this page just started (before its first event). */
export function startedJob(fields: {
  requestId: string;
  kind: JobKind;
  prompt: string;
  provider?: string;
  model?: string;
  slots: number;
  frame?: { width: number; height: number };
}): LiveJob {
  const { slots, ...rest } = fields;
  return {
    ...rest,
    origin: 'here',
    status: 'running',
    phases: [],
    slots: emptySlots(slots),
    startedAt: new Date().toISOString(),
    described: true,
  };
}

function replace(jobs: LiveJob[], job: LiveJob): LiveJob[] {
  const index = jobs.findIndex((candidate) => candidate.requestId === job.requestId);
  if (index === -1) return [job, ...jobs];
  const next = jobs.slice();
  next[index] = job;
  return next;
}

function withSlot(job: LiveJob, slot: number, change: Partial<LiveSlot>): LiveJob {
  const slots = job.slots.slice();
  while (slots.length <= slot) slots.push({ slot: slots.length });
  slots[slot] = { ...slots[slot], ...change };
  return { ...job, slots };
}

const isMultimode = (result: JobResult): result is MultimodeResult => 'results' in result;
/** A trace's result is the SVG's asset record itself. */
const isAsset = (result: JobResult): result is AssetRecord => 'filename' in result;
/** A video job's result: its video (a storyboard's join) shows as the one output until the Video view exists. */
const isVideo = (result: JobResult): result is VideoResult => 'video' in result && 'operation' in result;

/** An agent turn's result is the turn: its images show as the outputs (the Agent view is a later issue). */
const isAgentTurn = (result: JobResult): result is AgentTurn => 'itemId' in result;
/** An MCP job's result: its one file (image or video) in history. */
const isMcp = (result: JobResult): result is McpResult => 'taskId' in result && 'asset' in result;

/** The slots a finished job shows: its images, or each slot's outcome. */
function slotsOfResult(job: LiveJob, result: JobResult): LiveSlot[] {
  // The partial renders go: the image replaces them (and they are large).
  if (isAsset(result))
    return [{ ...job.slots[0], slot: 0, provider: result.provider, model: result.model, image: result, partial: undefined }];
  if (isVideo(result))
    return [{ ...job.slots[0], slot: 0, provider: result.provider, model: result.model, image: result.video, partial: undefined }];
  if (isMcp(result))
    return [{ ...job.slots[0], slot: 0, provider: result.provider, model: result.model, image: result.asset, partial: undefined }];
  if (isAgentTurn(result))
    return result.images.map((image, index) => ({
      ...job.slots[index],
      slot: index,
      provider: result.provider ?? undefined,
      model: result.model ?? undefined,
      image,
      partial: undefined,
    }));
  if (isMultimode(result)) {
    return result.results.map((outcome) => ({
      ...job.slots[outcome.slot],
      slot: outcome.slot,
      provider: outcome.provider,
      model: outcome.model,
      image: outcome.image,
      revisedPrompt: outcome.revisedPrompt,
      error: outcome.error,
      partial: undefined,
    }));
  }
  return result.images.map((image, index) => ({
    ...job.slots[index],
    slot: index,
    provider: result.provider,
    model: result.model,
    image,
    revisedPrompt: result.revisedPrompt,
    partial: undefined,
  }));
}

function finished(job: LiveJob, fields: { result?: JobResult | null; error?: ErrorPayload | null }): LiveJob {
  if (fields.result)
    return { ...job, status: 'succeeded', result: fields.result, slots: slotsOfResult(job, fields.result), cancelling: false };
  const error = fields.error ?? { code: 'UNKNOWN', message: 'The job ended without a result.' };
  return { ...job, status: error.code === 'JOB_CANCELLED' ? 'cancelled' : 'failed', error, cancelling: false };
}

/** A job first heard of through an event. */
const heardOf = (event: GenerationEvent): LiveJob => ({
  requestId: event.requestId,
  kind: event.kind,
  origin: 'elsewhere',
  phases: [],
  status: 'running',
  slots: emptySlots(1),
  startedAt: new Date().toISOString(),
});

/** A `progress` event as a fraction 0–1, whichever of its shapes it has (`fraction`; `value` of `max`; `current` of `total`). */
function progressOf(event: GenerationEvent): number | undefined {
  const fields = event as unknown as Record<string, unknown>;
  const number = (key: string) => (typeof fields[key] === 'number' ? (fields[key] as number) : undefined);
  const fraction = number('fraction');
  if (fraction !== undefined) return fraction;
  for (const [part, whole] of [
    ['value', 'max'],
    ['current', 'total'],
  ] as const) {
    const done = number(part);
    const all = number(whole);
    if (done !== undefined && all !== undefined && all > 0) return Math.min(1, done / all);
  }
  return undefined;
}

/** Applies one event of topic `generation`. Events after a job's end (a replay) change nothing. */
export function applyEvent(jobs: LiveJob[], event: GenerationEvent): LiveJob[] {
  const known = jobs.find((job) => job.requestId === event.requestId);
  if (known && !isRunning(known)) return jobs;
  let job = known ?? heardOf(event);
  switch (event.event) {
    case 'phase': {
      const phases = job.phases.includes(event.phase) ? job.phases : [...job.phases, event.phase];
      job = { ...job, phase: event.phase, phases };
      if (event.phase === 'queued' && event.slot === undefined) {
        job = { ...job, provider: event.provider ?? job.provider, model: event.model ?? job.model, queuePosition: event.position };
      } else {
        job = withSlot({ ...job, queuePosition: undefined }, event.slot ?? 0, {
          phase: event.phase,
          provider: event.provider,
          model: event.model,
        });
      }
      break;
    }
    case 'partial':
      if (event.b64)
        job = withSlot(job, event.slot ?? 0, { partial: `data:image/${event.format};base64,${event.b64}`, partialIndex: event.index });
      break;
    case 'progress':
      job = { ...job, progress: progressOf(event) ?? job.progress };
      break;
    case 'slot_done':
      job = withSlot(job, event.slot, {
        image: event.result.image,
        revisedPrompt: event.result.revisedPrompt,
        provider: event.result.provider,
        model: event.result.model,
        error: event.result.error,
        partial: undefined,
      });
      break;
    case 'slot_error':
      job = withSlot(job, event.slot, { error: event.error });
      break;
    case 'done':
      job = finished(job, { result: event.result });
      break;
    case 'error':
      job = finished(job, { error: event.error });
      break;
  }
  return replace(jobs, job);
}

/** What a job record says of its request: prompt, slot count, size asked for. */
function describeRequest(record: JobRecord): Pick<LiveJob, 'prompt' | 'frame'> & { slotCount: number } {
  const summary = jobSummary(record);
  const size = summary.size ? parseSize(summary.size) : undefined;
  return {
    prompt: summary.prompt ?? summary.source ?? undefined,
    frame: size ? { width: size.width, height: size.height } : undefined,
    slotCount: summary.outputs,
  };
}

/** Merges GET /api/jobs/:id: fills in what the page did not know, and the end when the job is over. */
export function applyRecord(jobs: LiveJob[], record: JobRecord, origin: LiveJob['origin'] = 'elsewhere'): LiveJob[] {
  const known = jobs.find((job) => job.requestId === record.requestId);
  const { slotCount, ...described } = describeRequest(record);
  let job: LiveJob = known ?? {
    requestId: record.requestId,
    kind: record.kind,
    origin,
    phases: record.phase ? [record.phase] : [],
    phase: record.phase ?? undefined,
    status: 'running',
    slots: emptySlots(slotCount),
    startedAt: record.startedAt ?? record.createdAt,
  };
  job = {
    ...job,
    prompt: job.prompt ?? described.prompt,
    frame: job.frame ?? described.frame,
    provider: job.provider ?? record.provider ?? undefined,
    model: job.model ?? record.model ?? undefined,
    slots: job.slots.length >= slotCount ? job.slots : [...job.slots, ...emptySlots(slotCount).slice(job.slots.length)],
    described: true,
  };
  const terminal = record.finishedAt !== null;
  if (terminal && isRunning(job)) {
    const error =
      record.error ??
      (record.state === 'interrupted' ? { code: 'JOB_INTERRUPTED', message: 'The studio stopped while the job ran.' } : null);
    job = finished(job, { result: record.result, error });
  }
  return replace(jobs, job);
}

/**
 * Merges GET /api/inflight: jobs running on the server are shown running
 * (a job the page already saw end stays ended: its event may have overtaken
 * the list). Answers the page's running jobs the server no longer runs; their
 * end must be read from GET /api/jobs/:id.
 */
export function applyInflight(jobs: LiveJob[], inflight: readonly InflightJob[]): { jobs: LiveJob[]; ended: string[] } {
  let next = jobs;
  for (const running of inflight) {
    const known = next.find((job) => job.requestId === running.requestId);
    if (known && !isRunning(known)) continue;
    const base: LiveJob = known ?? {
      requestId: running.requestId,
      kind: running.kind,
      origin: 'elsewhere',
      phases: [],
      status: 'running',
      slots: emptySlots(running.slots ?? 1),
      startedAt: running.startedAt ?? running.createdAt,
    };
    const phases = base.phases.includes(running.phase) ? base.phases : [...base.phases, running.phase];
    next = replace(next, {
      ...base,
      phase: running.phase,
      phases,
      provider: running.provider,
      model: running.model ?? base.model,
      cancelling: running.cancelling,
      queuePosition: running.state === 'queued' ? running.position : undefined,
    });
  }
  const runningIds = new Set(inflight.map((job) => job.requestId));
  const ended = next.filter((job) => isRunning(job) && !runningIds.has(job.requestId)).map((job) => job.requestId);
  return { jobs: next, ended };
}

/** Marks a job as ending with an error the page learned itself (the POST was refused, the record is gone). */
export function failJob(jobs: LiveJob[], requestId: string, error: ErrorPayload): LiveJob[] {
  const job = jobs.find((candidate) => candidate.requestId === requestId);
  return job ? replace(jobs, finished(job, { error })) : jobs;
}

export const removeJob = (jobs: LiveJob[], requestId: string): LiveJob[] => jobs.filter((job) => job.requestId !== requestId);

/** An image that did not decode left history: its slot shows why instead of the image. */
export function markAssetBroken(jobs: LiveJob[], filename: string, error: ErrorPayload): LiveJob[] {
  const holds = (job: LiveJob) => job.slots.some((slot) => slot.image?.filename === filename);
  if (!jobs.some(holds)) return jobs;
  return jobs.map((job) =>
    holds(job)
      ? {
          ...job,
          slots: job.slots.map((slot) =>
            slot.image?.filename === filename ? { ...slot, image: undefined, partial: undefined, error } : slot,
          ),
        }
      : job,
  );
}
