import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { startMcpHost, textPart, type McpHost, type McpSimulator } from '../mcp-host.js';
import { ZETA_SIM_DEFAULT_MODELS, ZETA_SIM_MODELS } from './catalog.js';
import { SimTasks, simTaskStore, type SimTaskState } from './tasks.js';

// The simulated MCP media server behind the `zeta` lane (contract:
// zeta-eta-source-usage §2.1, §2.3): tools `generate_image`, `generate_video`
// (answer "Task created: <id>" and `structuredContent.taskId`), `get_task`
// (the status word in the text, SUCCEEDED with `structuredContent.url` and
// the artifacts as JSON in the text), the upload flow `init_upload` →
// presigned PUT → `complete_upload` (an asset URL); the protocol's
// `tasks/get` / `tasks/cancel` over the same tasks. The billing tools are
// listed, as on the real server, and answer an error if ever called. Bearer
// auth; prompt triggers in tasks.ts.

export { MCP_SIM_TRIGGERS } from './tasks.js';
export type { ToolCallEntry } from '../mcp-host.js';

export const DEFAULT_ZETA_TOKEN = 'sim-zeta-token';
/** The `pollInterval` a task object suggests (ms). */
const TASK_POLL_INTERVAL_MS = 2000;

const STATUS_WORDS: Record<SimTaskState, string> = {
  queued: 'PENDING',
  running: 'RUNNING',
  succeeded: 'SUCCEEDED',
  failed: 'FAILED',
  canceled: 'CANCELED',
};

export interface ZetaSimulatorOptions {
  readonly tokens?: readonly string[];
  readonly acceptToken?: (token: string) => boolean;
  /** How long a task runs (default 0: done at the first poll). */
  readonly latencyMs?: number;
  readonly port?: number;
}

export type ZetaSimulator = McpSimulator;

const text = textPart;
const failure = (message: string) => ({ content: [text(message)], isError: true });

const reference = z.object({ url: z.string(), tag: z.string().optional() });

export async function startZetaSimulator(options: ZetaSimulatorOptions = {}): Promise<ZetaSimulator> {
  const tokens = options.tokens ?? [DEFAULT_ZETA_TOKEN];
  // Tasks publish their files on the host, which starts after them.
  const started: { host?: McpHost } = {};
  const tasks = new SimTasks(options.latencyMs ?? 0, (bytes, mime, extension) => (started.host as McpHost).publish(bytes, mime, extension));

  const buildServer = (host: McpHost): McpServer => {
    const server = new McpServer(
      { name: 'zeta-sim', version: '1.0.0', title: 'Zeta media server (simulated)' },
      // The protocol's tasks/get and tasks/cancel over the tools' tasks (contract: mcp-streamable-http §6.2).
      {
        capabilities: { tasks: { list: {}, cancel: {} } },
        taskStore: simTaskStore(tasks, TASK_POLL_INTERVAL_MS, (taskId, sessionId) => host.log('tasks/cancel', { taskId }, sessionId)),
      },
    );
    const submit = (
      kind: 'image' | 'video',
      args: { promptText: string; model?: string; ratio?: string; duration?: number; resolution?: string },
    ) => {
      const model = ZETA_SIM_MODELS.find((entry) => entry.id === (args.model ?? ZETA_SIM_DEFAULT_MODELS[kind]));
      if (!model || model.kind !== kind) return failure(`Unknown ${kind} model: ${args.model}`);
      const ratio = args.ratio ?? (kind === 'image' ? '1:1' : '16:9');
      if (!model.aspectRatios.includes(ratio)) return failure(`Model ${model.id} does not support ratio ${ratio}.`);
      const task = tasks.create({
        kind,
        prompt: args.promptText,
        model: model.id,
        ratio,
        durationSeconds: args.duration ?? 4,
        resolution: args.resolution ?? '480p',
      });
      if (task.triggers.has('no-id')) return { content: [text('The generation was accepted.')] };
      return { content: [text(`Task created: ${task.id}`)], structuredContent: { taskId: task.id, status: 'PENDING' } };
    };
    const logged =
      <A extends Record<string, unknown>, R>(tool: string, run: (args: A) => R | Promise<R>) =>
      (args: A, extra: { sessionId?: string }) => {
        host.log(tool, args, extra.sessionId);
        return run(args);
      };

    server.registerTool(
      'generate_image',
      {
        description: 'Generate an image from a prompt.',
        inputSchema: {
          rationale: z.string(),
          promptText: z.string().min(1),
          model: z.string().optional(),
          ratio: z.string().optional(),
          referenceImages: z.array(reference).max(3).optional(),
          count: z.number().int().optional(),
        },
      },
      logged('generate_image', (args) => submit('image', args)),
    );
    server.registerTool(
      'generate_video',
      {
        description: 'Generate a video from a prompt or frames.',
        inputSchema: {
          rationale: z.string(),
          promptText: z.string().optional(),
          model: z.string().optional(),
          ratio: z.string().optional(),
          duration: z.number().optional(),
          resolution: z.string().optional(),
          generateAudio: z.boolean().optional(),
          startFrame: z.object({ url: z.string() }).optional(),
          endFrame: z.object({ url: z.string() }).optional(),
          referenceImages: z.array(reference).max(3).optional(),
          referenceVideo: z.object({ url: z.string() }).optional(),
        },
      },
      logged('generate_video', (args) => submit('video', { ...args, promptText: args.promptText ?? '' })),
    );
    server.registerTool(
      'get_task',
      {
        description: 'Read a generation task.',
        inputSchema: { rationale: z.string(), id: z.string() },
        annotations: { readOnlyHint: true },
      },
      logged('get_task', async (args) => {
        const task = tasks.get(args.id);
        if (!task) return failure(`Task ${args.id} not found.`);
        const reading = await tasks.read(task);
        const status = STATUS_WORDS[reading.state];
        const body = {
          task: {
            id: task.id,
            status,
            ...(reading.url ? { artifacts: [{ url: reading.url }] } : {}),
            ...(reading.reason ? { failure: reading.reason } : {}),
          },
        };
        return {
          content: [text(`Task ${task.id}\n"status": "${status}"\n${JSON.stringify(body)}`)],
          structuredContent: { id: task.id, status, ...(reading.url ? { url: reading.url } : {}) },
        };
      }),
    );
    server.registerTool(
      'init_upload',
      {
        description: 'Start an upload of a local file.',
        inputSchema: {
          rationale: z.string(),
          filename: z.string(),
          fileSize: z
            .number()
            .int()
            .max(100 * 1024 * 1024),
          mimeType: z.string(),
        },
      },
      logged('init_upload', () => {
        const target = host.uploadTarget();
        return { content: [text(`uploadId: ${target.id}`)], structuredContent: { uploadId: target.id, uploadUrls: [target.url] } };
      }),
    );
    server.registerTool(
      'complete_upload',
      {
        description: 'Finish an upload.',
        inputSchema: {
          rationale: z.string(),
          uploadId: z.string(),
          parts: z.array(z.object({ partNumber: z.number().int(), etag: z.string() })),
        },
      },
      logged('complete_upload', (args) => {
        const done = host.uploaded(args.uploadId);
        if (!done || args.parts[0]?.etag !== done.etag) return failure('The upload is not complete (no matching ETag).');
        const extension = done.mime.split('/')[1] ?? 'bin';
        return { content: [text('Upload complete.')], structuredContent: { url: host.publish(done.bytes, done.mime, extension) } };
      }),
    );
    // Listed as on the real server; the studio must never call them.
    for (const billing of ['confirm_billing_purchase', 'cancel_trial_auto_renewal', 'confirm_trial_cancel']) {
      server.registerTool(
        billing,
        { description: 'Billing action.', inputSchema: {} },
        logged(billing, () => failure('Billing actions are not simulated.')),
      );
    }
    return server;
  };

  // `[sim:drop]` in a prompt: the submit reaches the server, then its connection is cut unanswered.
  const dropCall = (tool: string, args: Record<string, unknown>) =>
    tool.startsWith('generate_') && typeof args.promptText === 'string' && args.promptText.includes('[sim:drop]');
  const host = await startMcpHost({
    name: 'zeta',
    tokens,
    ...(options.acceptToken ? { acceptToken: options.acceptToken } : {}),
    buildServer,
    dropCall,
    ...(options.port !== undefined ? { port: options.port } : {}),
  });
  started.host = host;
  return { url: host.url, endpoint: host.endpoint, token: tokens[0], host, close: () => host.close() };
}
