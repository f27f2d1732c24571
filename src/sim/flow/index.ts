import { createHash, randomUUID } from 'node:crypto';
import { WebSocket, WebSocketServer } from 'ws';
import { createSimulator, formField, type SimRequest, type SimResponse, type Simulator } from '../harness.js';
import { FlowExecutor, type FileRef } from './executor.js';
import { objectInfo, validateGraph, type ApiGraph } from './nodes.js';

// The simulated local node-graph server behind the `flow` lane (contract:
// flow-node-graph-queue): `POST /prompt` with the server's validation answers,
// `/queue`, `/interrupt`, `/history`, `/view`, `/upload/image`, `/object_info`,
// `/system_stats`, every route also under `/api`, and the WebSocket
// `/ws?clientId=` with the server's messages and binary previews. One prompt
// runs at a time, the others wait; the sampler takes `stepMs` per step. No
// authentication (a local tool). Two instances on two ports are independent.

export { FLOW_TRIGGERS } from './executor.js';

export interface FlowSimulatorOptions {
  readonly port?: number;
  /** Time per sampler step (default 5 ms). */
  readonly stepMs?: number;
}

export interface FlowSimulator {
  readonly url: string;
  readonly simulator: Simulator;
  readonly executor: FlowExecutor;
  /** Open WebSocket connections. */
  readonly sockets: () => number;
  /** WebSocket connections accepted since the start. */
  readonly connections: () => number;
  /** Cuts every WebSocket (a network blip): clients reconnect and catch up from history. */
  dropSockets(): void;
  close(): Promise<void>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const FILE_TYPES = ['output', 'input', 'temp'] as const;

const fileKey = (ref: FileRef) => `${ref.type}/${ref.subfolder}/${ref.filename}`;

/** `/view` and upload names: no leading slash, no `..` (§2: 400), a subfolder that stays inside (403). */
function checkName(name: string): boolean {
  return name.length > 0 && !name.startsWith('/') && !name.split(/[\\/]/).includes('..');
}

export async function startFlowSimulator(options: FlowSimulatorOptions = {}): Promise<FlowSimulator> {
  const simulator = createSimulator({
    name: 'flow',
    // The server answers plain text or its own shapes; an injected status gets a short text body.
    errorBody: (status) => ({
      error: { type: 'server_error', message: `Simulated HTTP ${status}.`, details: '', extra_info: {} },
      node_errors: {},
    }),
    notFound: () => ({ status: 404, body: '404: Not Found' }),
  });
  const files = new Map<string, Buffer>();
  const sockets = new Map<string, WebSocket>();
  let accepted = 0;
  const send = (socket: WebSocket | undefined, payload: string | Buffer) => {
    if (socket?.readyState === WebSocket.OPEN) socket.send(payload);
  };
  const executor = new FlowExecutor(
    {
      send: (clientId, type, data) => send(clientId ? sockets.get(clientId) : undefined, JSON.stringify({ type, data })),
      broadcast: (type, data) => {
        const frame = JSON.stringify({ type, data });
        for (const socket of sockets.values()) send(socket, frame);
      },
      sendBinary: (clientId, frame) => send(clientId ? sockets.get(clientId) : undefined, frame),
      saveFile: (ref, bytes) => files.set(fileKey(ref), bytes),
      readFile: (ref) => files.get(fileKey(ref)),
    },
    options.stepMs ?? 5,
  );
  const inputNames = () => [...files.keys()].filter((key) => key.startsWith('input//')).map((key) => key.slice('input//'.length));

  // Every route also under /api (§2).
  const route = (method: string, path: string, handler: (request: SimRequest, response: SimResponse) => void | Promise<void>) => {
    simulator.route(method, path, handler);
    simulator.route(method, `/api${path}`, handler);
  };

  route('POST', '/prompt', async (request, response) => {
    const body = request.body as Record<string, unknown> | undefined;
    if (!body || typeof body !== 'object' || !('prompt' in body)) {
      await response.json(400, {
        error: { type: 'no_prompt', message: 'No prompt provided', details: 'No prompt provided', extra_info: {} },
        node_errors: {},
      });
      return;
    }
    const graph = body.prompt as ApiGraph;
    if (!graph || typeof graph !== 'object' || Array.isArray(graph)) {
      await response.json(400, {
        error: { type: 'invalid_prompt', message: 'Invalid prompt', details: 'prompt must be an object', extra_info: {} },
        node_errors: {},
      });
      return;
    }
    const checked = validateGraph(graph, inputNames());
    if (checked.error) {
      await response.json(400, { error: checked.error, node_errors: checked.nodeErrors });
      return;
    }
    const wanted = typeof body.prompt_id === 'string' && UUID.test(body.prompt_id) ? body.prompt_id : undefined;
    if (wanted && executor.has(wanted)) {
      await response.json(400, {
        error: { type: 'invalid_prompt', message: 'Prompt id already used', details: wanted, extra_info: {} },
        node_errors: {},
      });
      return;
    }
    const item = executor.submit({
      graph,
      outputs: checked.outputs,
      clientId: typeof body.client_id === 'string' ? body.client_id : undefined,
      promptId: wanted ?? randomUUID(),
      extraData: (body.extra_data as Record<string, unknown> | undefined) ?? {},
      front: body.front === true,
      ...(typeof body.number === 'number' ? { number: body.number } : {}),
    });
    await response.json(200, { prompt_id: item.promptId, number: item.number, node_errors: {} });
  });
  route('GET', '/prompt', (_request, response) => response.json(200, { exec_info: { queue_remaining: executor.queueRemaining } }));
  route('GET', '/queue', (_request, response) => response.json(200, executor.queue()));
  route('POST', '/queue', async (request, response) => {
    const body = (request.body ?? {}) as { clear?: unknown; delete?: unknown };
    if (body.clear === true) executor.clear();
    if (Array.isArray(body.delete)) executor.delete(body.delete.filter((id): id is string => typeof id === 'string'));
    await response.send(200, '', 'text/plain');
  });
  route('POST', '/interrupt', async (request, response) => {
    const body = request.body as { prompt_id?: unknown } | undefined;
    executor.interrupt(typeof body?.prompt_id === 'string' ? body.prompt_id : undefined);
    await response.send(200, '', 'text/plain');
  });
  route('GET', '/history', (request, response) => {
    const max = request.query.get('max_items');
    return response.json(200, executor.allHistory(max ? Number(max) : undefined, Number(request.query.get('offset') ?? 0) || 0));
  });
  route('GET', '/history/:id', (request, response) => {
    const entry = executor.historyOf(request.params.id);
    return response.json(200, entry ? { [request.params.id]: entry } : {});
  });
  route('POST', '/history', async (request, response) => {
    const body = (request.body ?? {}) as { clear?: unknown; delete?: unknown };
    if (body.clear === true) executor.deleteHistory('all');
    if (Array.isArray(body.delete)) executor.deleteHistory(body.delete.filter((id): id is string => typeof id === 'string'));
    await response.send(200, '', 'text/plain');
  });
  route('GET', '/view', async (request, response) => {
    const filename = request.query.get('filename') ?? '';
    const subfolder = request.query.get('subfolder') ?? '';
    const typeParam = request.query.get('type') ?? 'output';
    const type = (FILE_TYPES as readonly string[]).includes(typeParam) ? (typeParam as FileRef['type']) : 'output';
    if (!checkName(filename)) return response.send(400, '', 'text/plain');
    if (subfolder && !checkName(subfolder)) return response.send(403, '', 'text/plain');
    const bytes = files.get(fileKey({ filename, subfolder, type }));
    if (!bytes) return response.send(404, '', 'text/plain');
    const png = bytes[0] === 0x89 && bytes[1] === 0x50;
    return response.send(200, bytes, png ? 'image/png' : bytes[0] === 0xff ? 'image/jpeg' : 'application/octet-stream', {
      'content-disposition': `filename="${filename}"`,
    });
  });
  route('POST', '/upload/image', async (request, response) => {
    const file = request.form?.files.find((entry) => entry.name === 'image');
    if (!file) return response.send(400, '', 'text/plain');
    const typeField = request.form ? formField(request.form, 'type') : undefined;
    const type = (FILE_TYPES as readonly string[]).includes(typeField ?? '') ? (typeField as FileRef['type']) : 'input';
    const subfolder = (request.form && formField(request.form, 'subfolder')) || '';
    const overwrite = ['true', '1'].includes((request.form && formField(request.form, 'overwrite')) ?? '');
    const original = file.filename ?? 'image.png';
    if (!checkName(original) || (subfolder && !checkName(subfolder))) return response.send(400, '', 'text/plain');
    // De-duplicated with " (n)" unless overwriting or the bytes are the same (§2).
    let name = original;
    const dot = original.lastIndexOf('.');
    const [stem, extension] = dot > 0 ? [original.slice(0, dot), original.slice(dot)] : [original, ''];
    const digest = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
    for (let n = 1; !overwrite; n += 1) {
      const existing = files.get(fileKey({ filename: name, subfolder, type }));
      if (!existing || digest(existing) === digest(file.data)) break;
      name = `${stem} (${n})${extension}`;
    }
    files.set(fileKey({ filename: name, subfolder, type }), file.data);
    return response.json(200, { name, subfolder, type });
  });
  route('GET', '/object_info', (_request, response) => response.json(200, objectInfo(inputNames())));
  route('GET', '/object_info/:type', (request, response) => {
    const info = objectInfo(inputNames())[request.params.type];
    return response.json(200, info ? { [request.params.type]: info } : {});
  });
  route('GET', '/system_stats', (_request, response) =>
    response.json(200, {
      system: {
        os: 'posix',
        ram_total: 17179869184,
        ram_free: 8589934592,
        comfyui_version: '0.3.60-sim',
        python_version: '3.12.3',
        pytorch_version: '2.6.0',
        embedded_python: false,
        argv: ['main.py'],
      },
      devices: [
        {
          name: 'sim:0 Simulated GPU',
          type: 'cuda',
          index: 0,
          vram_total: 8589934592,
          vram_free: 6442450944,
          torch_vram_total: 0,
          torch_vram_free: 0,
        },
      ],
    }),
  );
  route('GET', '/models', (_request, response) => response.json(200, ['checkpoints', 'loras', 'vae']));
  route('GET', '/embeddings', (_request, response) => response.json(200, []));
  route('GET', '/extensions', (_request, response) => response.json(200, []));

  // The WebSocket (§3): a client id from the query or a new one, told as `sid`; a reconnect with
  // the same id replaces the old socket and hears `executing` again for its running prompt.
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  simulator.onUpgrade((req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== '/ws' && url.pathname !== '/api/ws') {
      socket.destroy();
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      accepted += 1;
      const clientId = url.searchParams.get('clientId') || randomUUID().replace(/-/g, '');
      const previous = sockets.get(clientId);
      sockets.set(clientId, ws);
      previous?.terminate();
      ws.on('close', () => {
        if (sockets.get(clientId) === ws) sockets.delete(clientId);
      });
      ws.on('error', () => ws.terminate());
      send(
        ws,
        JSON.stringify({ type: 'status', data: { status: { exec_info: { queue_remaining: executor.queueRemaining } }, sid: clientId } }),
      );
      executor.resendTo(clientId);
    });
  });

  await simulator.start(options.port ?? 0);
  return {
    url: simulator.url,
    simulator,
    executor,
    sockets: () => sockets.size,
    connections: () => accepted,
    dropSockets() {
      for (const socket of sockets.values()) socket.terminate();
    },
    async close() {
      executor.close();
      for (const socket of sockets.values()) socket.terminate();
      sockets.clear();
      wss.close();
      await simulator.close();
    },
  };
}
