import type { QueryClient } from '@tanstack/react-query';
import type { EditRequest, GenerateRequest, JobKind, MultimodeRequest } from '../../api/contract';
import { parseSize } from '../../api/contract';
import { api, toErrorPayload } from '../../api/http';
import { failJob, startedJob, updateLiveJobs } from '../../live/liveJobs';
import { rememberJob } from '../../live/sync';
import type { Composer } from '../../store/ui';
import type { LaneChoice } from './laneChoice';
import { hasNativeSize, NATIVE_SIZE_OPTIONS } from './optionRules';

// Turns the composer into one async request (generate, edit or multimode) and
// starts it: the job is on the page before the POST is sent, so no event of
// it can arrive unseen; its progress then comes over the event stream.

/** A fresh requestId (`crypto.randomUUID` needs a secure context; a LAN address with a token is not one). */
export function newRequestId(): string {
  if (typeof crypto.randomUUID === 'function' && window.isSecureContext) return `web-${crypto.randomUUID()}`;
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `web-${Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}

export interface PlannedRequest {
  path: '/api/generate' | '/api/edit' | '/api/generate/multimode';
  kind: JobKind;
  body: GenerateRequest | EditRequest | MultimodeRequest;
  slots: number;
}

/** The request body: only the controls the lane takes, its options when set, the references by file name or bytes. */
export function planRequest(composer: Composer, choice: LaneChoice, requestId: string): PlannedRequest {
  const controls: Partial<GenerateRequest> = {};
  // A native aspect ratio or resolution is given instead of a size, never with one.
  const native =
    hasNativeSize(choice) && NATIVE_SIZE_OPTIONS.some((name) => composer.options[name] !== undefined && composer.options[name] !== '');
  for (const control of choice.controls) {
    if (native && control === 'size') continue;
    const value = composer.controls[control];
    if (value !== undefined && value !== '') Object.assign(controls, { [control]: value });
  }
  // Only the options the lane's schema has (a remixed asset may carry settings of another lane).
  const known = new Set(Object.keys((choice.options?.properties ?? {}) as object));
  const options = Object.fromEntries(
    Object.entries(composer.options).filter(([name, value]) => known.has(name) && value !== undefined && value !== ''),
  );
  const references = composer.references.map((reference) =>
    reference.source === 'history' ? { filename: reference.filename } : { data: reference.dataUrl, name: reference.name },
  );
  const shared: GenerateRequest = {
    prompt: composer.prompt.trim(),
    provider: composer.provider,
    ...(composer.model ? { model: composer.model } : {}),
    ...controls,
    ...(Object.keys(options).length > 0 && choice.options ? { options } : {}),
    ...(references.length > 0 ? { references } : {}),
    requestId,
    async: true,
  };
  if (composer.editImage)
    return { path: '/api/edit', kind: 'edit', body: { ...shared, image: { filename: composer.editImage.filename } }, slots: 1 };
  if (composer.count > 1 && choice.multimode)
    return { path: '/api/generate/multimode', kind: 'multimode', body: { ...shared, n: composer.count }, slots: composer.count };
  return { path: '/api/generate', kind: 'generate', body: shared, slots: 1 };
}

/** What a card started here needs to run again: the request as sent and how its card looked. */
interface SentJob {
  planned: PlannedRequest;
  provider?: string;
  model?: string;
  frame?: { width: number; height: number };
}

/** Requests this page sent, by requestId: a failed card's Retry sends the same again under a new id. */
const sent = new Map<string, SentJob>();

export const canRetry = (requestId: string): boolean => sent.has(requestId);

async function send(queryClient: QueryClient, job: SentJob): Promise<string> {
  const requestId = newRequestId();
  const planned = { ...job.planned, body: { ...job.planned.body, requestId } };
  sent.set(requestId, { ...job, planned });
  updateLiveJobs(queryClient, (jobs) => [
    startedJob({
      requestId,
      kind: planned.kind,
      prompt: planned.body.prompt,
      provider: job.provider,
      model: job.model,
      slots: planned.slots,
      frame: job.frame,
    }),
    ...jobs,
  ]);
  rememberJob(requestId);
  try {
    await api(planned.path, { method: 'POST', body: planned.body });
  } catch (error) {
    updateLiveJobs(queryClient, (jobs) => failJob(jobs, requestId, toErrorPayload(error)));
  }
  return requestId;
}

/** Starts the composer's job; its card shows progress, or why the studio refused it. */
export function startGeneration(queryClient: QueryClient, composer: Composer, choice: LaneChoice): Promise<string> {
  const planned = planRequest(composer, choice, '');
  const frame =
    parseSize(composer.controls.size ?? choice.defaultSize ?? '') ??
    (composer.editImage ? { width: composer.editImage.width, height: composer.editImage.height } : undefined);
  return send(queryClient, {
    planned,
    provider: composer.provider === 'auto' ? undefined : composer.provider,
    model: composer.model || undefined,
    frame,
  });
}

/** Sends a failed job's request again, as a new job (its own card, above). */
export function retryJob(queryClient: QueryClient, requestId: string): Promise<string> | undefined {
  const job = sent.get(requestId);
  return job ? send(queryClient, job) : undefined;
}

/** Asks the studio to cancel a running job; its `error` event (JOB_CANCELLED) ends the card. */
export async function cancelJob(queryClient: QueryClient, requestId: string): Promise<void> {
  updateLiveJobs(queryClient, (jobs) => jobs.map((job) => (job.requestId === requestId ? { ...job, cancelling: true } : job)));
  try {
    await api(`/api/inflight/${encodeURIComponent(requestId)}`, { method: 'DELETE' });
  } catch (error) {
    // Already over: its end arrives (or arrived) as an event.
    updateLiveJobs(queryClient, (jobs) => jobs.map((job) => (job.requestId === requestId ? { ...job, cancelling: false } : job)));
    if (toErrorPayload(error).code !== 'JOB_NOT_FOUND') throw error;
  }
}
