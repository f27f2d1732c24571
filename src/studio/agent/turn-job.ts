import { performance } from 'node:perf_hooks';
import { ServiceError } from '../errors.js';
import { AGENT_LIMITS, COMMON_CONTROLS, agentPlan, type AgentPlan, type AgentTurn, type ImageJobRequest } from '../api/index.js';
import { LANES } from '../catalog/registry.js';
import type { StudioContext } from '../context.js';
import type { JobContext, JobHandler } from '../jobs/handlers.js';
import { runSlot, type ImageJob } from '../jobs/image-job.js';
import { planImageJob, type ImageInputs } from '../jobs/plan.js';
import { studioStorage } from '../jobs/limits.js';
import { jobFailure } from '../jobs/records.js';
import { isParked } from '../jobs/parked.js';
import { describeInput, loadImageInput, type ReferenceImage } from '../references.js';
import { textBudgetMs } from '../prompt-builder/backends.js';
import type { AgentSessionRow, AgentTurnRow } from '../store/agent.js';
import { helpText, parseTurn, type ParsedTurn } from './commands.js';
import { commandPlan, planTurn, type TurnContext } from './planner.js';
import { announceItem } from './queue.js';
import { agentEvents, becomeCurrent, settingsOf, turnView } from './sessions.js';

// The handler of `agent-turn` jobs: one queue item. It plans (a slash
// command, the planner model, or the rules), then for an image runs the
// session's lane through the image path (runSlot: the lane call, its steps,
// saving), one variant after another; an edit sends the current image as its
// input. The first image becomes the session's current image. The turn row
// follows every step, so the session shows it even after the job is swept.
//
// Billing at most once: the checkpoint is set before the planner model is
// asked and before a direct lane call; a lane with steps (gamma) records its
// operation, and a one-image turn on it resumes from it after a restart, with
// the plan stored on its turn. Anything else that reached an upstream ends
// `interrupted` (the item `failed` with JOB_INTERRUPTED), never sent again by itself.

const now = () => new Date().toISOString();
const elapsed = (since: number) => Math.round((performance.now() - since) * 100) / 100;

/** A turn's budget from its first start (SVC_AGENT_TURN_TIMEOUT_MS): the planner's and the generations'. */
function turnBudgetMs(ctx: StudioContext): number {
  const override = Number(ctx.env.SVC_AGENT_TURN_TIMEOUT_MS);
  return Number.isFinite(override) && override > 0 ? override : textBudgetMs(ctx) + 600_000;
}

type TurnJob = JobContext<'agent-turn'>;

async function sessionOf(ctx: StudioContext, id: string): Promise<AgentSessionRow> {
  const row = await ctx.store.agent.findSession(id);
  if (!row) throw new ServiceError('AGENT_SESSION_NOT_FOUND', `The agent session ${id} was deleted.`, { details: { id } });
  return row;
}

/** The image an edit starts from: the session's current image when the turn runs (what the items before it made), else the one stored with the item. */
async function currentImageOf(ctx: StudioContext, job: TurnJob, session: AgentSessionRow): Promise<ReferenceImage> {
  const stored = job.request.inputs.current;
  const name = session.current_image;
  if (name && stored?.filename === name) return job.inputs?.current ?? (await ctx.jobs.inputs.load(stored));
  if (name) {
    const fromHistory = await loadImageInput(ctx, { filename: name }, 'currentImage').catch(() => undefined);
    if (fromHistory) return fromHistory;
  }
  if (stored) return job.inputs?.current ?? (await ctx.jobs.inputs.load(stored));
  throw new ServiceError(
    'AGENT_NO_CURRENT_IMAGE',
    'The session has no current image to edit: make one first, or set one (PATCH currentImage).',
    { details: { sessionId: session.id } },
  );
}

/** The earlier turns the planner reads (the newest AGENT_LIMITS.plannerTurns): what the user said, what the studio answered. */
async function historyOf(ctx: StudioContext, session: AgentSessionRow, itemId: string): Promise<TurnContext['history']> {
  const rows = (await ctx.store.agent.listTurns(session.id)).filter((row) => row.state === 'succeeded' && row.id !== itemId);
  // Only the words: no view of the turn (its images looked up in history) for what the planner never reads.
  return rows.slice(-AGENT_LIMITS.plannerTurns).map((row) => {
    const reply = row.plan === null ? null : agentPlan.parse(JSON.parse(row.plan)).reply;
    return { user: row.prompt, assistant: reply ?? row.final_prompt ?? '' };
  });
}

/** The prompt of the current image (what the planner reads about it). */
async function currentPromptOf(ctx: StudioContext, session: AgentSessionRow): Promise<string | null> {
  if (!session.current_image) return null;
  return (await ctx.store.assets.find(session.current_image))?.prompt ?? null;
}

/** The turn's plan: stored (a resumed turn), a command's, or the planner's. */
async function planOf(
  ctx: StudioContext,
  job: TurnJob,
  session: AgentSessionRow,
  turn: AgentTurnRow,
  parsed: ParsedTurn,
): Promise<AgentPlan> {
  if (job.operation && turn.plan) return agentPlan.parse(JSON.parse(turn.plan));
  const locks = { styleLock: session.style_lock, subjectLock: session.subject_lock };
  if (parsed.kind === 'new' || parsed.kind === 'variants')
    return commandPlan('generate', parsed.text, parsed.kind === 'variants' ? parsed.variants : 1, locks);
  if (parsed.kind === 'edit') return commandPlan('edit', parsed.text, 1, locks);
  if (parsed.kind !== 'plan' && parsed.kind !== 'question') throw new Error(`A ${parsed.kind} turn has no plan.`);
  job.phase('planning', { provider: 'agent' });
  agentEvents(ctx).progress({ sessionId: session.id, itemId: turn.id, requestId: job.requestId, step: 'planning' });
  const context: TurnContext = {
    text: parsed.text,
    hasCurrentImage: session.current_image !== null,
    currentPrompt: await currentPromptOf(ctx, session),
    styleLock: session.style_lock,
    subjectLock: session.subject_lock,
    webSearch: session.web_search === 1,
    history: await historyOf(ctx, session, turn.id),
    ...(parsed.kind === 'question' ? { forced: 'answer' as const } : {}),
  };
  return planTurn(ctx, context, { sending: () => job.sending(), signal: job.signal });
}

/** What a turn that makes no image ends with. */
interface Outcome {
  readonly plan: AgentPlan;
  readonly images: readonly string[];
  readonly finalPrompt: string | null;
  readonly provider: string | null;
  readonly model: string | null;
  readonly inputImage: string | null;
  readonly planMs: number;
}

const answerOnly = (reply: string, decidedBy: AgentPlan['decidedBy'] = 'command'): AgentPlan => ({
  action: 'answer',
  variants: 1,
  prompt: null,
  reply,
  decidedBy,
  backend: null,
  model: null,
});

/** `/lane`: the session's lane (and model) for the next turns; the controls the new lane has not are dropped. */
async function setLane(
  ctx: StudioContext,
  session: AgentSessionRow,
  turn: AgentTurnRow,
  parsed: Extract<ParsedTurn, { kind: 'lane' }>,
): Promise<AgentPlan> {
  const settings = settingsOf(session);
  const lane = parsed.provider === 'auto' ? undefined : LANES[parsed.provider];
  const kept = Object.fromEntries(
    COMMON_CONTROLS.filter((control) => control !== 'negativePrompt' && (!lane || lane.controls.includes(control))).flatMap((control) =>
      control in settings ? [[control, settings[control as keyof typeof settings]]] : [],
    ),
  );
  const next = { ...kept, provider: parsed.provider, ...(parsed.model ? { model: parsed.model } : {}) };
  const plan = answerOnly(`The next turns run on ${parsed.provider}${parsed.model ? `/${parsed.model}` : ''}.`);
  await ctx.store.agent.changeSession(session.id, () => ({
    session: { settings: JSON.stringify(next), updated_at: now() },
    turn: planned(turn, plan),
  }));
  return plan;
}

/** `/undo`: the current image goes back one step. */
async function undo(ctx: StudioContext, session: AgentSessionRow, turn: AgentTurnRow): Promise<AgentPlan> {
  let restored: string | null = null;
  let plan = answerOnly('The session has no current image now.');
  const row = await ctx.store.agent.changeSession(session.id, (row) => {
    const previous = JSON.parse(row.previous_images) as string[];
    if (!row.current_image)
      throw new ServiceError('AGENT_NO_CURRENT_IMAGE', 'There is no current image to go back from.', { details: { sessionId: row.id } });
    restored = previous.at(-1) ?? null;
    if (restored) plan = answerOnly(`The current image is ${restored} again.`);
    return {
      session: { current_image: restored, previous_images: JSON.stringify(previous.slice(0, -1)), updated_at: now() },
      turn: planned(turn, plan),
    };
  });
  if (row) agentEvents(ctx).currentImage({ sessionId: session.id, filename: restored, reason: 'undo' });
  return plan;
}

/**
 * A command's plan stored on its turn, in the unit of work that changes the session: a
 * command that changed the session has its plan stored, so a run after a crash does not apply it twice.
 */
const planned = (turn: AgentTurnRow, plan: AgentPlan) => ({ id: turn.id, fields: { plan: JSON.stringify(plan) } });

/** Generates the plan's images on the session's lane; the first becomes the current image. */
async function generate(
  ctx: StudioContext,
  job: TurnJob,
  session: AgentSessionRow,
  turn: AgentTurnRow,
  plan: AgentPlan,
  run: RunState,
): Promise<Omit<Outcome, 'plan' | 'planMs'>> {
  const operation = plan.action === 'edit' ? 'edit' : 'generate';
  const settings = settingsOf(session);
  const prompt = plan.prompt ?? turn.prompt;
  // Lane, model, controls and the credential, resolved when the turn runs (a /lane before it counts).
  const planned = await planImageJob(ctx, [{ requestId: job.requestId, fields: { ...settings, prompt } }], {}, operation);
  const slot = planned.request.slots[0];
  const lane = LANES[slot.lane];
  const image = operation === 'edit' ? await currentImageOf(ctx, job, session) : undefined;
  const references =
    job.inputs?.references ?? (await Promise.all(job.request.inputs.references.map((descriptor) => ctx.jobs.inputs.load(descriptor))));
  const count = references.length + (image ? 1 : 0);
  if (count > lane.maxInputImages) {
    throw new ServiceError(
      lane.codes.tooManyReferences ?? 'REFERENCE_TOO_MANY',
      `The ${lane.id} lane takes at most ${lane.maxInputImages} input images; this turn has ${count} (the current image counts).`,
      {
        details: { lane: lane.id, max: lane.maxInputImages, got: count },
      },
    );
  }
  const inputs: ImageInputs = { references, ...(image ? { image } : {}) };
  const request: ImageJobRequest = {
    operation,
    slots: [slot],
    inputs: { references: references.map(describeInput), ...(image ? { image: describeInput(image) } : {}) },
  };
  const stepped = lane.adapter?.steps !== undefined;
  // One operation per job: a turn of several variants on a lane with steps keeps none, so it is not resumed.
  const view: ImageJob = {
    ...job,
    kind: operation,
    request,
    inputs,
    operation: job.operation,
    recordOperation:
      plan.variants === 1
        ? async (operation, id, state) => {
            run.operationRecorded = true;
            await job.recordOperation(operation, id, state);
          }
        : async () => {},
  };
  const images: string[] = [];
  for (let variant = 0; variant < plan.variants; variant += 1) {
    agentEvents(ctx).progress({
      sessionId: session.id,
      itemId: turn.id,
      requestId: job.requestId,
      step: 'generating',
      action: plan.action,
      variant,
      variants: plan.variants,
    });
    if (!stepped) await job.sending();
    const result = await runSlot(
      ctx,
      { ...view, operation: variant === 0 ? job.operation : null },
      slot,
      inputs,
      plan.variants > 1 ? variant : undefined,
    );
    images.push(...result.images.map((asset) => asset.filename));
  }
  const first = images[0] ?? null;
  await ctx.store.agent.changeSession(session.id, (row) => ({ session: becomeCurrent(row, first, images) }));
  agentEvents(ctx).currentImage({ sessionId: session.id, filename: first, reason: 'turn' });
  agentEvents(ctx).progress({
    sessionId: session.id,
    itemId: turn.id,
    requestId: job.requestId,
    step: 'saved',
    action: plan.action,
    variants: plan.variants,
  });
  return { images, finalPrompt: prompt, provider: slot.lane, model: slot.model.id, inputImage: image?.filename ?? null };
}

/** What the handler learns while a turn runs. */
interface RunState {
  /** The lane's operation is stored on the job: a stop at shutdown leaves it to resume, not ended. */
  operationRecorded: boolean;
}

async function runTurn(ctx: StudioContext, job: TurnJob, turn: AgentTurnRow, started: number, run: RunState): Promise<Outcome> {
  const session = await sessionOf(ctx, job.request.sessionId);
  const parsed = parseTurn(turn.prompt);
  if (parsed.kind === 'help')
    return { plan: answerOnly(helpText()), images: [], finalPrompt: null, provider: null, model: null, inputImage: null, planMs: 0 };
  if (parsed.kind === 'lane' || parsed.kind === 'undo') {
    // Applied already (the studio stopped before the turn ended): its stored plan says what it did.
    const plan = turn.plan
      ? agentPlan.parse(JSON.parse(turn.plan))
      : parsed.kind === 'lane'
        ? await setLane(ctx, session, turn, parsed)
        : await undo(ctx, session, turn);
    return { plan, images: [], finalPrompt: null, provider: null, model: null, inputImage: null, planMs: 0 };
  }
  const plan = await planOf(ctx, job, session, turn, parsed);
  const planMs = elapsed(started);
  await ctx.store.agent.updateTurn(turn.id, { plan: JSON.stringify(plan) });
  agentEvents(ctx).progress({
    sessionId: session.id,
    itemId: turn.id,
    requestId: job.requestId,
    step: 'planned',
    action: plan.action,
    decidedBy: plan.decidedBy,
    variants: plan.variants,
  });
  if (plan.action === 'answer') return { plan, images: [], finalPrompt: null, provider: null, model: null, inputImage: null, planMs };
  if (job.signal.aborted) throw job.signal.reason;
  return { plan, planMs, ...(await generate(ctx, job, session, turn, plan, run)) };
}

export const agentTurnJobHandler: JobHandler<'agent-turn'> = {
  // Only a lane with steps records an operation, and only for a one-image turn: that one continues.
  canResume: (job) => job.operation !== null,
  // The turn sets its checkpoint itself (before the planner model, before a direct lane call).
  reachesUpstreamAtStart: () => false,
  budgetMs: (ctx) => turnBudgetMs(ctx),
  async run(ctx, job): Promise<AgentTurn> {
    const started = performance.now();
    const run: RunState = { operationRecorded: job.operation !== null };
    const found = await ctx.store.agent.findTurn(job.request.itemId);
    if (!found)
      throw new ServiceError('AGENT_ITEM_NOT_FOUND', `The agent item ${job.request.itemId} is gone (its session was deleted).`, {
        details: { itemId: job.request.itemId },
      });
    // A run after a park continues the turn that is running already: no second start.
    const continued = found.state === 'running' && found.job_id === job.requestId && job.operation !== null;
    if (!continued) {
      await ctx.store.agent.updateTurn(found.id, {
        state: 'running',
        job_id: job.requestId,
        started_at: now(),
        finished_at: null,
        error: null,
      });
    }
    const turn = continued ? found : ((await ctx.store.agent.findTurn(found.id)) ?? found);
    if (!continued) announceItem(ctx, turn);
    try {
      const outcome = await runTurn(ctx, job, turn, started, run);
      const totalMs = elapsed(started);
      await ctx.store.agent.updateTurn(turn.id, {
        state: 'succeeded',
        plan: JSON.stringify(outcome.plan),
        final_prompt: outcome.finalPrompt,
        provider: outcome.provider,
        model: outcome.model,
        input_image: outcome.inputImage,
        images: JSON.stringify(outcome.images),
        timings: JSON.stringify({ planMs: outcome.planMs, generateMs: Math.round((totalMs - outcome.planMs) * 100) / 100, totalMs }),
        finished_at: now(),
      });
      const done = (await ctx.store.agent.findTurn(turn.id)) ?? turn;
      announceItem(ctx, done);
      return turnView(ctx, done);
    } catch (error) {
      // Parked between two status calls of its lane: the turn goes on when the job runs again.
      if (isParked(error)) throw error;
      const failure = jobFailure(job.signal, error, job.requestId, studioStorage(ctx));
      // Stopped with its operation stored: shutdown detaches it (it resumes at the next start), a cancel ends it;
      // the engine's row says which, and the turn follows it when it is read (queue.ts reconcile).
      if (job.signal.aborted && run.operationRecorded) throw failure;
      const payload = failure.toBody().error;
      if (
        await ctx.store.agent.updateTurn(
          turn.id,
          { state: failure.code === 'JOB_CANCELLED' ? 'cancelled' : 'failed', error: JSON.stringify(payload), finished_at: now() },
          ['running'],
        )
      ) {
        const ended = await ctx.store.agent.findTurn(turn.id);
        if (ended) announceItem(ctx, ended, { error: payload });
      }
      throw failure;
    }
  },
};
