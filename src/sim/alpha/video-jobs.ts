import type { PromptTriggers } from '../prompt-triggers.js';
import { newId } from './state.js';
import type { VideoTriggerName } from './video-triggers.js';

// The simulated vendor's video jobs (contract §5): each runs for its time,
// its progress rising with it (or stalling under a trigger), its MP4 rendered
// meanwhile; the poll reads where it is. Bounded: the oldest jobs go first.

export type VideoJobKind = 'generation' | 'edit' | 'extension';

export interface VideoJob {
  readonly id: string;
  readonly kind: VideoJobKind;
  readonly model: string;
  readonly durationSeconds: number;
  readonly triggers: PromptTriggers<VideoTriggerName>;
  readonly createdAt: number;
  /** How long the job runs (stall included). */
  readonly runMs: number;
  /** A stall: from when, for how long. */
  readonly stall: { readonly at: number; readonly ms: number } | undefined;
  /** The render; its failure fails the job. */
  readonly render: Promise<Buffer>;
  rendered?: Buffer;
  renderError?: string;
  /** Name of its media link once done. */
  media?: string;
  costTicks: number;
}

const MAX_KEPT = 256;

export class VideoJobs {
  private readonly jobs = new Map<string, VideoJob>();

  constructor(
    /** How long a video job runs unless a trigger says otherwise. */
    private readonly runMs: number,
  ) {}

  create(spec: Omit<VideoJob, 'id' | 'createdAt' | 'runMs' | 'stall' | 'rendered' | 'renderError' | 'media'>): VideoJob {
    const { triggers } = spec;
    const base = triggers.has('video-slow') ? triggers.value('video-slow', this.runMs) : this.runMs;
    const stall = triggers.has('video-stall') ? { at: Math.round(base / 3), ms: triggers.value('video-stall', 3000) } : undefined;
    const job: VideoJob = { ...spec, id: newId('vid').replace('vid_', ''), createdAt: Date.now(), runMs: base + (stall?.ms ?? 0), stall };
    job.render.then(
      (bytes) => (job.rendered = bytes),
      (error: unknown) => (job.renderError = (error as Error).message),
    );
    this.jobs.set(job.id, job);
    if (this.jobs.size > MAX_KEPT) this.jobs.delete(this.jobs.keys().next().value as string);
    return job;
  }

  get(id: string): VideoJob | undefined {
    return this.jobs.get(id);
  }

  /** Progress 0–100 at `now`: linear in the running time, held during a stall, 99 at most until the job is done. */
  progress(job: VideoJob, now = Date.now()): number {
    let elapsed = now - job.createdAt;
    if (job.stall)
      elapsed = elapsed < job.stall.at ? elapsed : elapsed < job.stall.at + job.stall.ms ? job.stall.at : elapsed - job.stall.ms;
    const running = job.runMs - (job.stall?.ms ?? 0);
    return running <= 0 ? 99 : Math.min(99, Math.floor((elapsed / running) * 100));
  }

  /** Whether the job's time is up and its render is ready (or failed). */
  finished(job: VideoJob, now = Date.now()): boolean {
    return now - job.createdAt >= job.runMs && (job.rendered !== undefined || job.renderError !== undefined);
  }
}
