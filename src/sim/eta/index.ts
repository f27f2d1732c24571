import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { startMcpHost, textPart, type McpHost, type McpSimulator } from '../mcp-host.js';
import { SimTasks, simTaskStore, type SimTaskState } from '../zeta/tasks.js';

// The simulated MCP media server behind the `eta` lane (contract:
// zeta-eta-source-usage §1.2, §2.2, §2.3): `models_explore` (catalog pages of
// `limit` items, `has_more` / `next_page_token`), media ids (`media_upload` →
// PUT → `media_confirm`, `media_import_url`), `generate_image` /
// `generate_video` `{params:{model, …, medias:[{value, role}]}}` answering
// `results[0].id`, and `job_status {jobId, sync}` that holds up to `holdMs`
// before answering `generation.status` (and `generation.results.rawUrl` once
// completed). The server itself does not lock: the studio's configuration does.

export const DEFAULT_ETA_TOKEN = 'sim-eta-token';

const STATUS: Record<SimTaskState, string> = {
  queued: 'queued',
  running: 'in_progress',
  succeeded: 'completed',
  failed: 'failed',
  canceled: 'canceled',
};

interface EtaItem {
  readonly id: string;
  readonly name: string;
  readonly type: 'image' | 'video';
  readonly parameters: readonly Record<string, unknown>[];
  readonly aspect_ratios: readonly string[];
  readonly medias?: readonly { roles: readonly string[] }[];
  readonly durations?: readonly number[];
}

const quality = { name: 'quality', type: 'string', options: ['basic', 'high'], default: 'basic' };
const resolution = { name: 'resolution', type: 'string', options: ['720p', '1080p'] };
const IMAGE_IDS = [
  'nano_banana_2',
  'nano_banana_pro',
  'soul_2',
  'soul_cinematic',
  'gpt_image_2',
  'cinematic_studio_2_5',
  'marketing_studio_image',
  'ms_image',
  'image_auto',
  'autosprite',
  'soul_cast',
  'soul_location',
];
const VIDEO_IDS = [
  'cinematic_studio_3_0',
  'cinematic_studio_video',
  'cinematic_studio_video_v2',
  'marketing_studio_video',
  'clipify',
  'higgsfield_preset',
];

/** The catalog as the server lists it (the snapshot ids of §1.2). */
export const ETA_CATALOG: readonly EtaItem[] = [
  ...IMAGE_IDS.map((id): EtaItem => ({
    id,
    name: id.replace(/_/g, ' '),
    type: 'image',
    parameters: [quality],
    aspect_ratios: ['1:1', '3:4', '4:3', '16:9', '9:16'],
    medias: [{ roles: ['image'] }],
  })),
  ...VIDEO_IDS.map((id): EtaItem => ({
    id,
    name: id.replace(/_/g, ' '),
    type: 'video',
    parameters: [resolution],
    aspect_ratios: ['16:9', '9:16', '1:1'],
    durations: [5, 10],
    medias: [{ roles: ['image'] }],
  })),
];

export interface EtaSimulatorOptions {
  readonly tokens?: readonly string[];
  readonly acceptToken?: (token: string) => boolean;
  readonly latencyMs?: number;
  /** Longest hold of `job_status {sync:true}` (the real server's ~25 s; default 1 s). */
  readonly holdMs?: number;
  readonly port?: number;
}

export type EtaSimulator = McpSimulator;

const text = textPart;
const answer = (structured: Record<string, unknown>) => ({ content: [text(JSON.stringify(structured))], structuredContent: structured });

export async function startEtaSimulator(options: EtaSimulatorOptions = {}): Promise<EtaSimulator> {
  const tokens = options.tokens ?? [DEFAULT_ETA_TOKEN];
  const holdMs = options.holdMs ?? 1000;
  const media = new Map<string, { uploadId?: string; url?: string }>();
  // Tasks publish their files on the host, which starts after them.
  const started: { host?: McpHost } = {};
  const tasks = new SimTasks(options.latencyMs ?? 0, (bytes, mime, extension) => (started.host as McpHost).publish(bytes, mime, extension));

  const buildServer = (host: McpHost): McpServer => {
    const server = new McpServer(
      { name: 'eta-sim', version: '1.0.0' },
      {
        capabilities: { tasks: { list: {}, cancel: {} } },
        taskStore: simTaskStore(tasks, holdMs, (taskId, sessionId) => host.log('tasks/cancel', { taskId }, sessionId)),
      },
    );
    const log = (tool: string, args: Record<string, unknown>, extra: { sessionId?: string }) => host.log(tool, args, extra.sessionId);

    server.registerTool(
      'models_explore',
      {
        description: 'List models.',
        inputSchema: {
          action: z.literal('list'),
          type: z.enum(['image', 'video']),
          limit: z.number().int().min(1).max(100).optional(),
          after: z.string().optional(),
        },
        annotations: { readOnlyHint: true },
      },
      (args, extra) => {
        log('models_explore', args, extra);
        const all = ETA_CATALOG.filter((item) => item.type === args.type);
        const start = args.after ? all.findIndex((item) => item.id === args.after) + 1 : 0;
        const items = all.slice(start, start + (args.limit ?? 100));
        const more = start + items.length < all.length;
        return answer({ items, has_more: more, ...(more ? { next_page_token: items[items.length - 1].id } : {}) });
      },
    );
    server.registerTool(
      'media_upload',
      { description: 'Start a media upload.', inputSchema: { filename: z.string(), content_type: z.string() } },
      (args, extra) => {
        log('media_upload', args, extra);
        const target = host.uploadTarget();
        const id = randomUUID();
        media.set(id, { uploadId: target.id });
        return answer({ uploads: [{ upload_url: target.url, media_id: id }] });
      },
    );
    server.registerTool(
      'media_confirm',
      { description: 'Confirm an upload.', inputSchema: { type: z.enum(['image', 'video', 'audio']), media_id: z.string() } },
      (args, extra) => {
        log('media_confirm', args, extra);
        const entry = media.get(args.media_id);
        if (!entry?.uploadId || !host.uploaded(entry.uploadId)) return answer({ error: 'The media was not uploaded.' });
        return answer({ results: [{ media_id: args.media_id }] });
      },
    );
    server.registerTool(
      'media_import_url',
      { description: 'Import media from a URL.', inputSchema: { url: z.string(), type: z.enum(['image', 'video', 'audio']) } },
      (args, extra) => {
        log('media_import_url', args, extra);
        if (!args.url.startsWith('https://')) return answer({ error: 'Only https URLs can be imported.' });
        const id = randomUUID();
        media.set(id, { url: args.url });
        return answer({ media_id: id });
      },
    );
    const params = z.object({
      model: z.string(),
      prompt: z.string().optional(),
      aspect_ratio: z.string().optional(),
      duration: z.number().optional(),
      resolution: z.string().optional(),
      quality: z.string().optional(),
      count: z.number().int().optional(),
      use_unlim: z.boolean().optional(),
      medias: z.array(z.object({ value: z.string(), role: z.enum(['start_image', 'end_image', 'image']) })).optional(),
    });
    for (const kind of ['image', 'video'] as const) {
      server.registerTool(
        `generate_${kind}`,
        { description: `Generate ${kind === 'image' ? 'an image' : 'a video'}.`, inputSchema: { params } },
        (args, extra) => {
          log(`generate_${kind}`, args, extra);
          const model = ETA_CATALOG.find((item) => item.id === args.params.model && item.type === kind);
          if (!model) return answer({ error: `Unknown ${kind} model ${args.params.model}.` });
          const unknown = args.params.medias?.find((entry) => !media.has(entry.value));
          if (unknown) return answer({ error: `Unknown media id ${unknown.value}.` });
          const task = tasks.create({
            kind,
            prompt: args.params.prompt ?? '',
            model: model.id,
            ratio: args.params.aspect_ratio ?? (kind === 'image' ? '1:1' : '16:9'),
            durationSeconds: args.params.duration ?? 4,
            resolution: args.params.resolution ?? '480p',
          });
          if (task.triggers.has('no-id')) return { content: [text('Accepted.')] };
          return answer({ results: [{ id: task.id }], generation: { id: task.id, status: 'queued' } });
        },
      );
    }
    server.registerTool(
      'job_status',
      { description: 'Read a job.', inputSchema: { jobId: z.string(), sync: z.boolean().optional() }, annotations: { readOnlyHint: true } },
      async (args, extra) => {
        log('job_status', args, extra);
        const task = tasks.get(args.jobId);
        if (!task) return answer({ error: `Job ${args.jobId} not found.` });
        let reading = await tasks.read(task);
        // sync: hold (a little) while the job is unfinished, as the real server does for ~25 s.
        const until = Date.now() + (args.sync ? holdMs : 0);
        while ((reading.state === 'queued' || reading.state === 'running') && Date.now() < until) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          reading = await tasks.read(task);
        }
        return answer({
          generation: {
            id: task.id,
            status: STATUS[reading.state],
            ...(reading.url ? { results: { rawUrl: reading.url } } : {}),
            ...(reading.reason ? { error: reading.reason } : {}),
          },
        });
      },
    );
    for (const billing of ['confirm_billing_purchase', 'cancel_trial_auto_renewal', 'confirm_trial_cancel']) {
      server.registerTool(billing, { description: 'Billing action.', inputSchema: {} }, (args, extra) => {
        log(billing, args, extra);
        return { content: [text('Billing actions are not simulated.')], isError: true };
      });
    }
    return server;
  };

  const host = await startMcpHost({
    name: 'eta',
    tokens,
    ...(options.acceptToken ? { acceptToken: options.acceptToken } : {}),
    buildServer,
    ...(options.port !== undefined ? { port: options.port } : {}),
  });
  started.host = host;
  return { url: host.url, endpoint: host.endpoint, token: tokens[0], host, close: () => host.close() };
}
