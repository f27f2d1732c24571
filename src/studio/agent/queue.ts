import { ServiceError } from '../errors.js';
import {
  AGENT_CANCELLABLE_STATES,
  AGENT_ITEM_STATES,
  AGENT_LIMITS,
  AGENT_RETRYABLE_STATES,
  type AgentItemState,
  type AgentQueue,
  type AgentSessionBody,
  type AgentTurn,
  type AgentTurnRequest,
  type ErrorPayload,
  type JobRecord,
} from '../api/index.js';
import type { StudioContext } from '../context.js';
import type { JobSpec } from '../jobs/running-job.js';
import { describeInput, loadImageInput, loadReferences } from '../references.js';
import type { AgentTurnRow } from '../store/agent.js';
import { parseTurn } from './commands.js';
import { agentEvents, liveAgentSession, sessionBody, turnRowsOf, turnView } from './sessions.js';

// The durable queue of Agent Mode. A queue item is a turn and an engine job
// (kind `agent-turn`) whose ordering key is its session: one runs at a time
// per session, in the order they came; sessions run side by side within the
// engine's limits. The turn row keeps the item's state for as long as the
// session lives; the job holds its input images, its lease and the billing rule.

const now = () => new Date().toISOString();

/** The ordering key of a session's items. */
const orderingKeyOf = (sessionId: string): string => `agent:${sessionId}`;

/**
 * Items this process recorded whose job is being submitted: the turn row is written first (the
 * handler reads it as soon as the job starts), so until the submit settles a missing job is not
 * a lost one, and a refused submit removes the row again (`itemDelivered`).
 */
const submitting = new WeakMap<StudioContext, Set<string>>();
const submittingOf = (ctx: StudioContext): Set<string> => {
  let ids = submitting.get(ctx);
  if (!ids) submitting.set(ctx, (ids = new Set()));
  return ids;
};

/** After an item's submit (accepted or refused): an item whose job was never accepted is no item; its row goes. */
export async function itemDelivered(ctx: StudioContext, requestId: string): Promise<void> {
  if (!submittingOf(ctx).has(requestId)) return;
  try {
    if (!(await ctx.jobs.get(requestId))) await ctx.store.agent.deleteQueuedTurn(requestId, requestId);
  } catch (error) {
    console.error(`agent item ${requestId}: its row could not be checked against its job:`, error);
  } finally {
    submittingOf(ctx).delete(requestId);
  }
}

/**
 * An item's id is its first job's requestId: one that names another job, or
 * another item, is REQUEST_ID_IN_USE (the same item asked for again is fine:
 * the engine answers it from its job).
 */
async function checkItemId(ctx: StudioContext, requestId: string, sessionId: string, prompt: string): Promise<void> {
  const turn = await ctx.store.agent.findTurn(requestId);
  const job = await ctx.jobs.get(requestId);
  const sameTurn = !turn || (turn.session_id === sessionId && turn.prompt === prompt);
  const sameJob =
    !job ||
    (job.kind === 'agent-turn' && job.request.itemId === requestId && job.request.sessionId === sessionId && job.request.prompt === prompt);
  if (sameTurn && sameJob) return;
  throw new ServiceError(
    'REQUEST_ID_IN_USE',
    `"${requestId}" already names another ${job && job.kind !== 'agent-turn' ? `${job.kind} job` : 'agent item'}; use a new requestId.`,
    {
      details: { requestId, ...(job ? { state: job.state, kind: job.kind } : {}) },
    },
  );
}

/** The job of a new item: the text checked (commands), the current image and references stored with it, its turn recorded `queued`. */
export async function planTurnJob(
  ctx: StudioContext,
  sessionId: string,
  body: AgentTurnRequest,
  requestId: string,
): Promise<JobSpec<'agent-turn'>> {
  const session = await liveAgentSession(ctx, sessionId);
  const prompt = body.prompt?.trim() ?? '';
  if (!prompt)
    throw new ServiceError('AGENT_PROMPT_REQUIRED', 'A turn needs a prompt (its text, or a slash command: /help lists them).', {
      details: { field: 'prompt' },
    });
  const parsed = parseTurn(prompt);
  await checkItemId(ctx, requestId, sessionId, prompt);
  const references = await loadReferences(ctx, body.references ?? [], { lane: 'agent', max: AGENT_LIMITS.referencesMax });
  // The current image as it is now goes with the item, so it survives a restart even if history loses it.
  const current = session.current_image
    ? await loadImageInput(ctx, { filename: session.current_image }, 'currentImage').catch(() => undefined)
    : undefined;
  // The same requestId again is the same item: its turn is kept as it is. Marked submitting before
  // the row exists, so no read in between takes the row for one whose job was lost.
  const marked = !submittingOf(ctx).has(requestId);
  if (marked) submittingOf(ctx).add(requestId);
  if (
    await ctx.store.agent.insertTurn({
      id: requestId,
      session_id: sessionId,
      job_id: requestId,
      prompt,
      command: parsed.command,
      created_at: now(),
    })
  ) {
    const row = await ctx.store.agent.findTurn(requestId);
    if (row) announceItem(ctx, row);
  } else if (marked) submittingOf(ctx).delete(requestId);
  return {
    requestId,
    kind: 'agent-turn',
    lane: null,
    model: null,
    request: {
      sessionId,
      itemId: requestId,
      prompt,
      inputs: {
        current: current && session.current_image ? { ...describeInput(current), filename: session.current_image } : null,
        references: references.map(describeInput),
      },
    },
    inputs: { ...(current ? { current } : {}), references },
    inputImages: [...references, ...(current ? [current] : [])],
    orderingKey: orderingKeyOf(sessionId),
  };
}

/** Publishes an item's state (with its place when queued). */
export function announceItem(ctx: StudioContext, row: AgentTurnRow, extra: { position?: number; error?: ErrorPayload } = {}): void {
  agentEvents(ctx).item({
    sessionId: row.session_id,
    itemId: row.id,
    requestId: row.job_id,
    state: row.state,
    attempt: row.attempt,
    ...extra,
  });
}

/**
 * A turn whose row says queued or running, brought in line with its job: a
 * job the engine ended without the turn's handler (cancelled while queued,
 * interrupted by a restart, refused as unreadable) ends its turn the same way.
 */
async function reconcile(ctx: StudioContext, row: AgentTurnRow): Promise<{ row: AgentTurnRow; job?: JobRecord }> {
  if (row.state !== 'queued' && row.state !== 'running') return { row };
  const job = await ctx.jobs.get(row.job_id);
  // Not ended, or its job not submitted yet (the request that queued it is still at it).
  if ((job && !job.finishedAt) || (!job && submittingOf(ctx).has(row.job_id))) return { row, job };
  let state: AgentItemState = 'failed';
  let error: ErrorPayload | null = {
    code: 'JOB_NOT_FOUND',
    message: 'The job of this item is gone (never accepted, or swept); retry the item.',
    details: { requestId: row.job_id },
  };
  if (job) {
    state = job.state === 'succeeded' ? 'succeeded' : job.state === 'cancelled' ? 'cancelled' : 'failed';
    error = job.error;
  }
  const fields = { state, error: error ? JSON.stringify(error) : null, finished_at: job?.finishedAt ?? now() };
  if (await ctx.store.agent.updateTurn(row.id, fields, ['queued', 'running'])) {
    const updated = (await ctx.store.agent.findTurn(row.id)) ?? row;
    announceItem(ctx, updated, error ? { error } : {});
    return { row: updated, job };
  }
  return { row: (await ctx.store.agent.findTurn(row.id)) ?? row, job };
}

/** A session's items as the API shows them: reconciled, the queued ones with their place (1 runs next). */
async function itemsOf(ctx: StudioContext, sessionId: string): Promise<AgentTurn[]> {
  const reconciled = await Promise.all((await turnRowsOf(ctx, sessionId)).map((row) => reconcile(ctx, row)));
  // Queued items run in the order their jobs were queued (a retried item goes to the back).
  const order = reconciled
    .filter(({ row }) => row.state === 'queued')
    .map(({ row, job }) => ({ id: row.id, at: job?.createdAt ?? row.created_at }))
    .sort((a, b) => a.at.localeCompare(b.at))
    .map((entry) => entry.id);
  return Promise.all(reconciled.map(({ row }) => turnView(ctx, row, row.state === 'queued' ? order.indexOf(row.id) + 1 : null)));
}

export async function agentQueueOf(ctx: StudioContext, sessionId: string): Promise<AgentQueue> {
  const session = await liveAgentSession(ctx, sessionId);
  const items = await itemsOf(ctx, sessionId);
  const summary = Object.fromEntries(
    AGENT_ITEM_STATES.map((state) => [state, items.filter((item) => item.state === state).length]),
  ) as AgentQueue['summary'];
  return { sessionId: session.id, items, summary };
}

export async function agentSessionOf(ctx: StudioContext, sessionId: string): Promise<AgentSessionBody> {
  const items = await itemsOf(ctx, sessionId);
  return sessionBody(ctx, await liveAgentSession(ctx, sessionId), items);
}

async function itemRowOf(ctx: StudioContext, itemId: string): Promise<AgentTurnRow> {
  const row = await ctx.store.agent.findTurn(itemId);
  if (!row) throw new ServiceError('AGENT_ITEM_NOT_FOUND', `No agent queue item with id "${itemId}".`, { details: { itemId } });
  return row;
}

/** An item brought in line with its job (cancel and retry check its state). */
const itemRow = async (ctx: StudioContext, itemId: string): Promise<AgentTurnRow> =>
  (await reconcile(ctx, await itemRowOf(ctx, itemId))).row;

/** An item as the API shows it: reconciled with its session's (which gives its place in the queue). */
export async function agentItem(ctx: StudioContext, itemId: string): Promise<AgentTurn> {
  const row = await itemRowOf(ctx, itemId);
  return (await itemsOf(ctx, row.session_id)).find((item) => item.itemId === itemId) ?? turnView(ctx, row);
}

/** A cancel's failure, unless it says the job is not there (ended and swept, or never accepted). */
const unlessGone = (error: unknown): void => {
  if (!(error instanceof ServiceError && error.code === 'JOB_NOT_FOUND')) throw error;
};

/** Cancels a queued item (it never runs) or a running one (its upstream call is aborted). */
export async function cancelAgentItem(ctx: StudioContext, itemId: string): Promise<AgentTurn> {
  const row = await itemRow(ctx, itemId);
  if (!AGENT_CANCELLABLE_STATES.includes(row.state)) {
    throw new ServiceError('AGENT_CANCEL_NOT_ALLOWED', `The item is ${row.state}; only a queued or running item can be cancelled.`, {
      details: { itemId, state: row.state, allowed: AGENT_CANCELLABLE_STATES },
    });
  }
  // Ended meanwhile: the reconciliation below tells how.
  await ctx.jobs.cancel(row.job_id, 'The agent queue item was cancelled.').catch(unlessGone);
  return agentItem(ctx, itemId);
}

/** Runs a failed or cancelled item again: a new attempt of its job, at the back of its session's queue. */
export async function retryAgentItem(ctx: StudioContext, itemId: string): Promise<AgentTurn> {
  const row = await itemRow(ctx, itemId);
  if (!AGENT_RETRYABLE_STATES.includes(row.state)) {
    throw new ServiceError('AGENT_RETRY_NOT_ALLOWED', `The item is ${row.state}; only a failed or cancelled item can be retried.`, {
      details: { itemId, state: row.state, allowed: AGENT_RETRYABLE_STATES },
    });
  }
  await liveAgentSession(ctx, row.session_id);
  const attempt = row.attempt + 1;
  const jobId = `${row.id.slice(0, 120)}~${attempt}`;
  // The turn points at the new attempt before its job can start (the handler finds it by item);
  // until the job exists, a read of the item does not take it for lost.
  submittingOf(ctx).add(jobId);
  try {
    if (
      !(await ctx.store.agent.updateTurn(
        row.id,
        { job_id: jobId, attempt, state: 'queued', error: null, started_at: null, finished_at: null },
        AGENT_RETRYABLE_STATES,
      ))
    ) {
      throw new ServiceError('AGENT_RETRY_NOT_ALLOWED', 'The item changed meanwhile; read it again.', { details: { itemId } });
    }
    // Told before its job can start: once submitted it may be running (or done) when read again.
    const queued = await ctx.store.agent.findTurn(row.id);
    if (queued) announceItem(ctx, queued);
    try {
      await ctx.jobs.retry(row.job_id, jobId);
    } catch (error) {
      await ctx.store.agent.updateTurn(row.id, {
        job_id: row.job_id,
        attempt: row.attempt,
        state: row.state,
        error: row.error,
        started_at: row.started_at,
        finished_at: row.finished_at,
      });
      announceItem(ctx, row);
      throw error;
    }
  } finally {
    submittingOf(ctx).delete(jobId);
  }
  return agentItem(ctx, itemId);
}

/** Deletes a session: its unfinished items are cancelled first, then it and its turns go (images stay in history). */
export async function deleteAgentSessionAndItems(ctx: StudioContext, sessionId: string): Promise<{ id: string; deleted: true }> {
  await liveAgentSession(ctx, sessionId);
  for (const row of await turnRowsOf(ctx, sessionId)) {
    if (row.state === 'queued' || row.state === 'running')
      await ctx.jobs.cancel(row.job_id, 'The agent session was deleted.').catch(unlessGone);
  }
  await ctx.store.agent.deleteSession(sessionId);
  return { id: sessionId, deleted: true };
}
