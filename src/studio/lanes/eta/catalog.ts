import { ServiceError } from '../../errors.js';
import type { LaneEnv } from '../env.js';
import { MCP_MEDIA_KINDS, type McpInputRole, type McpMediaKind, type McpModel, type McpParameter } from '../mcp-media/catalog.js';
import type { McpLaneDialect } from '../mcp-media/dialect.js';
import { mcpConnected, mcpTarget } from '../mcp-media/servers.js';
import { callTool } from '../mcp-media/tools.js';

// eta's catalog, read live (contract §1.2): `models_explore {action:"list",
// type, limit:100, after?}`, up to 3 pages per kind, 20 s per call, kept 10
// minutes after a success. Media roles `image`/`video`/`audio` become
// `image_references`/`video_references`/`audio_references`; `text` is always
// there. A read-only tool: reading it is not a generation.

const PAGE_LIMIT = 100;
const MAX_PAGES = 3;
const CALL_TIMEOUT_MS = 20_000;
const CACHE_MS = 10 * 60_000;

const cache = new WeakMap<LaneEnv, { at: number; models: readonly McpModel[] }>();
/** The last catalog read by any studio of this process (the video capability's model list has no environment to ask with). */
let latest: readonly McpModel[] = [];
export const latestEtaModels = (): readonly McpModel[] => latest;
const refreshing = new WeakSet<LaneEnv>();

const record = (value: unknown): Record<string, unknown> | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];

function parameterOf(value: unknown): McpParameter | undefined {
  const entry = record(value);
  if (!entry || typeof entry.name !== 'string') return undefined;
  const type = entry.type === 'number' ? 'number' : entry.type === 'bool' || entry.type === 'boolean' ? 'boolean' : 'string';
  const options = Array.isArray(entry.options)
    ? entry.options.filter((item): item is string | number => typeof item === 'string' || typeof item === 'number')
    : undefined;
  return {
    name: entry.name,
    type,
    ...(options?.length ? { options } : {}),
    ...(typeof entry.min === 'number' ? { min: entry.min } : {}),
    ...(typeof entry.max === 'number' ? { max: entry.max } : {}),
    ...(['string', 'number', 'boolean'].includes(typeof entry.default) ? { default: entry.default as string | number | boolean } : {}),
    ...(typeof entry.description === 'string' ? { description: entry.description } : {}),
  };
}

const ROLE: Record<string, McpInputRole> = { image: 'image_references', video: 'video_references', audio: 'audio_references' };

function modelOf(kind: McpMediaKind, value: unknown): McpModel | undefined {
  const item = record(value);
  if (!item || typeof item.id !== 'string') return undefined;
  const roles = new Set<McpInputRole>(['text']);
  for (const media of Array.isArray(item.medias) ? item.medias : [])
    for (const role of strings(record(media)?.roles)) if (ROLE[role]) roles.add(ROLE[role]);
  const parameters = (Array.isArray(item.parameters) ? item.parameters : [])
    .map(parameterOf)
    .filter((entry): entry is McpParameter => entry !== undefined);
  // A video's durations become its `duration` parameter (a list, or a range).
  const durations = Array.isArray(item.durations) ? item.durations.filter((entry): entry is number => typeof entry === 'number') : [];
  const range = record(item.duration_range);
  if (kind === 'video' && !parameters.some((entry) => entry.name === 'duration')) {
    if (durations.length) parameters.push({ name: 'duration', type: 'number', options: durations });
    else if (typeof range?.min === 'number' && typeof range.max === 'number')
      parameters.push({ name: 'duration', type: 'number', min: range.min, max: range.max });
  }
  return {
    id: item.id,
    kind,
    ...(typeof item.description === 'string' ? { description: item.description } : {}),
    aspectRatios: strings(item.aspect_ratios),
    inputRoles: [...roles],
    parameters,
  };
}

/**
 * The last catalog read, at once (the lane registry is synchronous); when it is missing or stale
 * and the lane is connected, it is read again in the background (its failure leaves the old one).
 */
export function cachedEtaModels(ctx: LaneEnv, lane: McpLaneDialect): readonly McpModel[] {
  const cached = cache.get(ctx);
  if (!cached || Date.now() - cached.at >= CACHE_MS) {
    if (mcpConnected(ctx, lane) && !refreshing.has(ctx)) {
      refreshing.add(ctx);
      void etaModels(ctx, lane)
        .catch(() => undefined)
        .finally(() => refreshing.delete(ctx));
    }
  }
  return cached?.models ?? [];
}

/** The models of eta, live (cached); MCP_NOT_CONNECTED when there is no server to ask. */
export async function etaModels(ctx: LaneEnv, lane: McpLaneDialect, signal?: AbortSignal): Promise<readonly McpModel[]> {
  const cached = cache.get(ctx);
  if (cached && Date.now() - cached.at < CACHE_MS) return cached.models;
  const call = {
    ctx,
    lane,
    target: mcpTarget(ctx, lane),
    signal: signal ?? new AbortController().signal,
    timeoutMs: () => CALL_TIMEOUT_MS,
  };
  const models: McpModel[] = [];
  for (const kind of MCP_MEDIA_KINDS) {
    let after: string | undefined;
    for (let page = 0; page < MAX_PAGES; page += 1) {
      const answer = await callTool(call, 'models_explore', { action: 'list', type: kind, limit: PAGE_LIMIT, ...(after ? { after } : {}) });
      const data = record(answer.structuredContent);
      if (!data)
        throw new ServiceError('MCP_TOOL_FAILED', 'eta models_explore answered without structured content.', {
          details: { lane: 'eta', retryable: true },
        });
      for (const item of Array.isArray(data.items) ? data.items : []) {
        const model = modelOf(kind, item);
        if (model) models.push(model);
      }
      after = typeof data.next_page_token === 'string' ? data.next_page_token : undefined;
      if (data.has_more !== true || !after) break;
    }
  }
  cache.set(ctx, { at: Date.now(), models });
  latest = models;
  return models;
}
