import { randomUUID } from 'node:crypto';
import { ServiceError } from '../errors.js';
import {
  AGENT_ITEM_STATES,
  COMMON_CONTROLS,
  agentPlan,
  agentSessionSettings,
  errorPayload,
  type AgentPlan,
  type AgentQueueSummary,
  type AgentSession,
  type AgentSessionBody,
  type AgentSessionSettings,
  type AgentTurn,
  type AssetRecord,
  type CreateAgentSessionRequest,
  type UpdateAgentSessionRequest,
} from '../api/index.js';
import { recordOf, saveAsset } from '../assets.js';
import { controlVerdict } from '../catalog/controls.js';
import { isKnownModel, resolveModel } from '../catalog/models.js';
import { LANES } from '../catalog/registry.js';
import type { StudioContext } from '../context.js';
import { parseLaneOptions } from '../lanes/define-lane.js';
import { loadImageInput } from '../references.js';
import type { AgentSessionRow, AgentSessionUpdate, AgentTurnRow } from '../store/agent.js';
import { AgentEvents } from './events.js';

// Agent Mode sessions: create, list, load, update (title, settings, web
// search, locks, the current image from history or an upload), delete; and
// the views of sessions and turns the API answers.

const now = () => new Date().toISOString();
const DEFAULT_TITLE = 'Agent session';
/** Sessions a list answers (newest first). */
const SESSIONS_LIST_MAX = 200;

export const agentEvents = (ctx: StudioContext): AgentEvents => new AgentEvents(ctx.events);

const json = <T>(text: string | null, fallback: T): T => (text === null ? fallback : (JSON.parse(text) as T));

/** A session that exists; AGENT_SESSION_NOT_FOUND otherwise. */
export async function liveAgentSession(ctx: StudioContext, id: string): Promise<AgentSessionRow> {
  const row = await ctx.store.agent.findSession(id);
  if (!row) throw new ServiceError('AGENT_SESSION_NOT_FOUND', `No agent session with id "${id}".`, { details: { id } });
  return row;
}

export const settingsOf = (row: AgentSessionRow): AgentSessionSettings => agentSessionSettings.parse(JSON.parse(row.settings));

/** A history image that is there (not deleted). */
async function liveAsset(ctx: StudioContext, filename: string): Promise<AssetRecord | undefined> {
  const row = await ctx.store.assets.find(filename);
  return row && row.deleted_at === null ? recordOf(row) : undefined;
}

/** Settings checked against the catalog: the lane, its model, its own options (each with the lane's codes). */
export function checkSettings(settings: AgentSessionSettings): AgentSessionSettings {
  const { provider, model, options } = settings;
  if (provider === undefined || provider === 'auto') {
    if (model !== undefined && !isKnownModel(model))
      throw new ServiceError('INVALID_IMAGE_MODEL', `Unknown model "${model}".`, { details: { field: 'settings.model', model } });
    return settings;
  }
  const lane = LANES[provider];
  if (!lane.adapter)
    throw new ServiceError('LANE_NOT_AVAILABLE', `The ${provider} lane is not available in this build.`, {
      details: { field: 'settings.provider', lane: provider },
    });
  resolveModel(lane, model);
  // A control the spec refuses on this lane (beta-api's quality) would fail every turn: refused here, at save.
  const [refused] = controlVerdict(
    lane,
    COMMON_CONTROLS.filter((control) => control in settings && settings[control as keyof AgentSessionSettings] !== undefined),
  ).refused;
  if (refused !== undefined)
    throw new ServiceError('LANE_UNSUPPORTED', `The ${lane.id} lane has no ${refused} control.`, {
      details: { lane: lane.id, field: `settings.${refused}`, supported: lane.controls },
    });
  parseLaneOptions(lane, options);
  return settings;
}

async function summaryOf(ctx: StudioContext, row: AgentSessionRow): Promise<AgentQueueSummary> {
  const counts = await ctx.store.agent.countTurns(row.id);
  return Object.fromEntries(AGENT_ITEM_STATES.map((state) => [state, counts[state] ?? 0])) as AgentQueueSummary;
}

export async function sessionView(ctx: StudioContext, row: AgentSessionRow): Promise<AgentSession> {
  const [currentImage, queue] = await Promise.all([row.current_image ? liveAsset(ctx, row.current_image) : undefined, summaryOf(ctx, row)]);
  return {
    id: row.id,
    title: row.title,
    settings: settingsOf(row),
    webSearch: row.web_search === 1,
    styleLock: row.style_lock,
    subjectLock: row.subject_lock,
    currentImage: currentImage ?? null,
    images: json<string[]>(row.images, []),
    queue,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** A turn as the API shows it (`position`: a queued item's place in its session). */
export async function turnView(ctx: StudioContext, row: AgentTurnRow, position: number | null = null): Promise<AgentTurn> {
  const plan: AgentPlan | null = row.plan === null ? null : agentPlan.parse(JSON.parse(row.plan));
  const images = await Promise.all(json<string[]>(row.images, []).map((filename) => liveAsset(ctx, filename)));
  return {
    itemId: row.id,
    sessionId: row.session_id,
    requestId: row.job_id,
    attempt: row.attempt,
    state: row.state,
    position: row.state === 'queued' ? position : null,
    prompt: row.prompt,
    command: (row.command as AgentTurn['command']) ?? null,
    plan,
    reply: plan?.reply ?? null,
    finalPrompt: row.final_prompt,
    provider: row.provider,
    model: row.model,
    inputImage: row.input_image,
    images: images.flatMap((image) => image ?? []),
    timings: json(row.timings, null),
    error: row.error === null ? null : errorPayload.parse(JSON.parse(row.error)),
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
  };
}

export async function createAgentSession(ctx: StudioContext, body: CreateAgentSessionRequest): Promise<AgentSession> {
  const at = now();
  const row: AgentSessionRow = {
    id: randomUUID(),
    title: body.title ?? DEFAULT_TITLE,
    settings: JSON.stringify(checkSettings(body.settings ?? {})),
    web_search: body.webSearch ? 1 : 0,
    style_lock: body.styleLock || null,
    subject_lock: body.subjectLock || null,
    current_image: null,
    previous_images: '[]',
    images: '[]',
    created_at: at,
    updated_at: at,
  };
  await ctx.store.agent.insertSession(row);
  return sessionView(ctx, row);
}

export const listSessionsOf = async (ctx: StudioContext): Promise<{ sessions: AgentSession[] }> => ({
  sessions: await Promise.all((await ctx.store.agent.listSessions(SESSIONS_LIST_MAX)).map((row) => sessionView(ctx, row))),
});

/** The image a PATCH names as current: a history file, or an upload saved into history first. */
async function imageToSet(ctx: StudioContext, session: AgentSessionRow, item: unknown): Promise<string> {
  const image = await loadImageInput(ctx, item, 'currentImage').catch((error: unknown) => {
    if (!(error instanceof ServiceError && error.code === 'REFERENCE_NOT_FOUND')) throw error;
    throw new ServiceError('AGENT_IMAGE_NOT_FOUND', `The image is not in history: ${error.message}`, {
      details: { ...error.details, field: 'currentImage' },
    });
  });
  if (image.source === 'history' && image.filename) {
    // A tombstoned image is not one to start from.
    if (!(await liveAsset(ctx, image.filename)))
      throw new ServiceError('AGENT_IMAGE_NOT_FOUND', `${image.filename} is not in history.`, {
        details: { field: 'currentImage', filename: image.filename },
      });
    return image.filename;
  }
  const saved = await saveAsset(ctx, {
    bytes: image.bytes,
    metadata: {
      prompt: image.filename ?? 'uploaded image',
      lane: 'import',
      model: 'none',
      requestId: randomUUID(),
      kind: 'import',
      sessionTitle: session.title,
      settings: { source: 'agent-upload', agentSessionId: session.id },
    },
  });
  return saved.filename;
}

/** The fields that make `filename` the current image (the one before it kept for /undo). */
export function becomeCurrent(row: AgentSessionRow, filename: string | null, added: readonly string[] = []): AgentSessionUpdate {
  const previous = json<string[]>(row.previous_images, []);
  const images = json<string[]>(row.images, []);
  return {
    current_image: filename,
    previous_images: JSON.stringify(row.current_image && row.current_image !== filename ? [...previous, row.current_image] : previous),
    images: JSON.stringify([
      ...images,
      ...[...added, ...(filename ? [filename] : [])].filter((name, index, all) => !images.includes(name) && all.indexOf(name) === index),
    ]),
    updated_at: now(),
  };
}

export async function updateAgentSession(ctx: StudioContext, id: string, body: UpdateAgentSessionRequest): Promise<AgentSession> {
  const session = await liveAgentSession(ctx, id);
  const settings = body.settings !== undefined ? JSON.stringify(checkSettings(body.settings)) : undefined;
  const current =
    body.currentImage === undefined ? undefined : body.currentImage === null ? null : await imageToSet(ctx, session, body.currentImage);
  const row = await ctx.store.agent.changeSession(id, (row) => ({
    session: {
      ...(current !== undefined ? becomeCurrent(row, current) : {}),
      ...(body.title !== undefined ? { title: body.title } : {}),
      ...(settings !== undefined ? { settings } : {}),
      ...(body.webSearch !== undefined ? { web_search: body.webSearch ? 1 : 0 } : {}),
      ...(body.styleLock !== undefined ? { style_lock: body.styleLock || null } : {}),
      ...(body.subjectLock !== undefined ? { subject_lock: body.subjectLock || null } : {}),
      updated_at: now(),
    },
  }));
  if (!row) throw new ServiceError('AGENT_SESSION_NOT_FOUND', `No agent session with id "${id}".`, { details: { id } });
  if (current !== undefined) agentEvents(ctx).currentImage({ sessionId: id, filename: current, reason: 'set' });
  return sessionView(ctx, row);
}

/** The session with its turns, oldest first. */
export async function sessionBody(ctx: StudioContext, row: AgentSessionRow, turns: readonly AgentTurn[]): Promise<AgentSessionBody> {
  return { ...(await sessionView(ctx, row)), turns: [...turns] };
}

export const turnRowsOf = (ctx: StudioContext, sessionId: string): Promise<AgentTurnRow[]> => ctx.store.agent.listTurns(sessionId);
