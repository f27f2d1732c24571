import { randomUUID } from 'node:crypto';
import { loadSharp } from '../../common/sharp.js';
import { renderImage } from '../image-renderer.js';
import { parsePromptTriggers } from '../prompt-triggers.js';
import { executionOrder, isLink, type ApiGraph } from './nodes.js';

// The simulated server's queue and executor (contract: flow-node-graph-queue
// §2–3): one prompt runs, the others wait in priority order; each node runs
// in turn, the sampler taking `stepMs` per step with a `progress` message and
// a binary preview each step; output nodes render with the procedural
// renderer at the size the graph binds. Messages go to the socket of the
// prompt's client id; queue `status` and `execution_interrupted` to everyone.
//
// Prompt triggers (in a text encode's text): `[sim:fail]` the sampler raises
// (`execution_error`), `[sim:no-output]` the save node produces no image,
// `[sim:not-image]` the saved file is not an image.

export const FLOW_TRIGGERS = ['fail', 'no-output', 'not-image'] as const;
type FlowTrigger = (typeof FLOW_TRIGGERS)[number];

export interface QueueItem {
  readonly number: number;
  readonly promptId: string;
  readonly graph: ApiGraph;
  readonly extraData: Record<string, unknown>;
  readonly outputs: readonly string[];
  readonly clientId: string | undefined;
}

export interface FileRef {
  readonly filename: string;
  readonly subfolder: string;
  readonly type: 'output' | 'input' | 'temp';
}

export interface HistoryEntry {
  readonly prompt: readonly unknown[];
  readonly outputs: Record<string, { images: FileRef[] }>;
  readonly status: { status_str: 'success' | 'error'; completed: boolean; messages: [string, Record<string, unknown>][] };
  readonly meta: Record<string, unknown>;
}

/** How the executor reaches the sockets and the file store. */
export interface ExecutorHost {
  /** A text frame to the client's socket (when connected). */
  send(clientId: string | undefined, type: string, data: Record<string, unknown>): void;
  /** A text frame to every socket. */
  broadcast(type: string, data: Record<string, unknown>): void;
  /** A binary frame (a preview) to the client's socket. */
  sendBinary(clientId: string | undefined, frame: Buffer): void;
  saveFile(ref: FileRef, bytes: Buffer): void;
  readFile(ref: FileRef): Buffer | undefined;
}

const queueItem = (item: QueueItem): unknown[] => [item.number, item.promptId, item.graph, item.extraData, item.outputs];

class Interrupted extends Error {}

/** The preview's binary frame (§3): event 1, format 1 (JPEG), the bytes. */
function previewFrame(jpeg: Buffer): Buffer {
  const header = Buffer.alloc(8);
  header.writeUInt32BE(1, 0);
  header.writeUInt32BE(1, 4);
  return Buffer.concat([header, jpeg]);
}

/** The preview's largest side: a draft, small like a real server's latent preview. */
const PREVIEW_SIDE = 128;

export class FlowExecutor {
  private readonly pending: QueueItem[] = [];
  private running: { item: QueueItem; interrupted: boolean; node: string | null; wake?: () => void } | undefined;
  private readonly history = new Map<string, HistoryEntry>();
  private counter = 0;
  private nextNumber = 0;
  private closed = false;
  /** Every interrupt that reached a running prompt (tests read it). */
  readonly interrupts: string[] = [];

  constructor(
    private readonly host: ExecutorHost,
    private readonly stepMs: number,
  ) {}

  get queueRemaining(): number {
    return this.pending.length + (this.running ? 1 : 0);
  }

  queue(): { queue_running: unknown[][]; queue_pending: unknown[][] } {
    return { queue_running: this.running ? [queueItem(this.running.item)] : [], queue_pending: this.pending.map(queueItem) };
  }

  /** A prompt id the queue or history already holds. */
  has(promptId: string): boolean {
    return (
      this.history.has(promptId) || this.running?.item.promptId === promptId || this.pending.some((item) => item.promptId === promptId)
    );
  }

  submit(fields: {
    graph: ApiGraph;
    outputs: string[];
    clientId?: string;
    promptId?: string;
    extraData?: Record<string, unknown>;
    front?: boolean;
    number?: number;
  }): QueueItem {
    const number = fields.number ?? (fields.front ? -++this.nextNumber : this.nextNumber++);
    const item: QueueItem = {
      number,
      promptId: fields.promptId ?? randomUUID(),
      graph: fields.graph,
      extraData: { ...(fields.extraData ?? {}), ...(fields.clientId ? { client_id: fields.clientId } : {}) },
      outputs: fields.outputs,
      clientId: fields.clientId,
    };
    this.pending.push(item);
    this.pending.sort((a, b) => a.number - b.number);
    this.broadcastStatus();
    queueMicrotask(() => this.pump());
    return item;
  }

  delete(promptIds: readonly string[]): void {
    const before = this.pending.length;
    for (let index = this.pending.length - 1; index >= 0; index -= 1)
      if (promptIds.includes(this.pending[index].promptId)) this.pending.splice(index, 1);
    if (this.pending.length !== before) this.broadcastStatus();
  }

  clear(): void {
    this.pending.length = 0;
    this.broadcastStatus();
  }

  /** Interrupts the running prompt (only that one when `promptId` is given). */
  interrupt(promptId?: string): void {
    const current = this.running;
    if (!current || current.interrupted) return;
    if (promptId !== undefined && current.item.promptId !== promptId) return;
    current.interrupted = true;
    this.interrupts.push(current.item.promptId);
    current.wake?.();
  }

  historyOf(promptId: string): HistoryEntry | undefined {
    return this.history.get(promptId);
  }

  allHistory(maxItems?: number, offset = 0): Record<string, HistoryEntry> {
    const entries = [...this.history.entries()].slice(offset, maxItems === undefined ? undefined : offset + maxItems);
    return Object.fromEntries(entries);
  }

  deleteHistory(promptIds: readonly string[] | 'all'): void {
    if (promptIds === 'all') this.history.clear();
    else for (const id of promptIds) this.history.delete(id);
  }

  /** Whatever the client owning the running prompt needs after it reconnects (§3: `executing` of the current node). */
  resendTo(clientId: string): void {
    const current = this.running;
    if (current && current.item.clientId === clientId && current.node)
      this.host.send(clientId, 'executing', { node: current.node, display_node: current.node, prompt_id: current.item.promptId });
  }

  close(): void {
    this.closed = true;
    this.pending.length = 0;
    this.interrupt();
  }

  private broadcastStatus(): void {
    this.host.broadcast('status', { status: { exec_info: { queue_remaining: this.queueRemaining } } });
  }

  private pump(): void {
    if (this.running || this.closed) return;
    const item = this.pending.shift();
    if (!item) return;
    this.running = { item, interrupted: false, node: null };
    void this.execute(item).finally(() => {
      this.running = undefined;
      this.broadcastStatus();
      this.pump();
    });
  }

  private async pause(ms: number): Promise<void> {
    const current = this.running;
    if (!current) return;
    if (current.interrupted) throw new Interrupted();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      current.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    current.wake = undefined;
    if (current.interrupted) throw new Interrupted();
  }

  private async execute(item: QueueItem): Promise<void> {
    const { promptId, clientId, graph } = item;
    const messages: [string, Record<string, unknown>][] = [];
    const say = (type: string, data: Record<string, unknown>, record = false) => {
      if (record) messages.push([type, data]);
      this.host.send(clientId, type, data);
    };
    const outputs: Record<string, { images: FileRef[] }> = {};
    const executed: string[] = [];
    say('execution_start', { prompt_id: promptId, timestamp: Date.now() }, true);
    say('execution_cached', { nodes: [], prompt_id: promptId, timestamp: Date.now() }, true);
    let failed: { node: string; message: string } | undefined;
    try {
      const scene = await this.sceneOf(graph);
      for (const id of executionOrder(graph)) {
        const entry = graph[id];
        if (this.running) this.running.node = id;
        say('executing', { node: id, display_node: id, prompt_id: promptId });
        if (entry.class_type === 'KSampler') {
          const steps = Number(entry.inputs.steps) || 1;
          for (let step = 1; step <= steps; step += 1) {
            await this.pause(this.stepMs);
            if (scene.triggers.has('fail') && step > steps / 2) {
              failed = { node: id, message: 'Simulated sampler failure.' };
              break;
            }
            say('progress', { value: step, max: steps, prompt_id: promptId, node: id });
            const draft = await renderImage({
              prompt: scene.prompt,
              ...previewSize(scene),
              format: 'jpeg',
              quality: 'partial',
              partialIndex: Math.min(2, Math.floor((3 * (step - 1)) / steps)),
              seed: scene.seed,
            });
            this.host.sendBinary(clientId, previewFrame(draft));
          }
          if (failed) break;
        } else if (entry.class_type === 'SaveImage' || entry.class_type === 'PreviewImage') {
          await this.pause(0);
          const images: FileRef[] = [];
          if (!scene.triggers.has('no-output')) {
            const save = entry.class_type === 'SaveImage';
            const prefix = save ? String(entry.inputs.filename_prefix ?? 'flow') : 'preview';
            const ref: FileRef = {
              filename: `${prefix}_${String(++this.counter).padStart(5, '0')}_.png`,
              subfolder: '',
              type: save ? 'output' : 'temp',
            };
            const bytes = scene.triggers.has('not-image') ? Buffer.from('not an image') : await this.render(scene);
            this.host.saveFile(ref, bytes);
            images.push(ref);
          }
          outputs[id] = { images };
          say('executed', { node: id, display_node: id, output: { images }, prompt_id: promptId });
        }
        executed.push(id);
      }
    } catch (error) {
      if (!(error instanceof Interrupted)) failed = { node: this.running?.node ?? '', message: (error as Error).message };
      else {
        const node = this.running?.node ?? null;
        const data = {
          prompt_id: promptId,
          node_id: node,
          node_type: node ? graph[node]?.class_type : null,
          executed,
          timestamp: Date.now(),
        };
        messages.push(['execution_interrupted', data]);
        this.host.broadcast('execution_interrupted', data);
        this.finish(item, outputs, messages, 'error');
        return;
      }
    }
    if (failed) {
      const data = {
        prompt_id: promptId,
        node_id: failed.node,
        node_type: graph[failed.node]?.class_type ?? '',
        executed,
        exception_message: failed.message,
        exception_type: 'RuntimeError',
        traceback: [],
        current_inputs: {},
        current_outputs: [],
        timestamp: Date.now(),
      };
      say('execution_error', data, true);
      this.finish(item, outputs, messages, 'error');
      return;
    }
    say('execution_success', { prompt_id: promptId, timestamp: Date.now() }, true);
    this.finish(item, outputs, messages, 'success');
  }

  private finish(
    item: QueueItem,
    outputs: HistoryEntry['outputs'],
    messages: HistoryEntry['status']['messages'],
    status: 'success' | 'error',
  ): void {
    const meta = Object.fromEntries(
      Object.keys(outputs).map((id) => [id, { node_id: id, display_node: id, parent_node: null, real_node_id: id }]),
    );
    this.history.set(item.promptId, {
      prompt: queueItem(item),
      outputs,
      status: { status_str: status, completed: status === 'success', messages },
      meta,
    });
    this.host.send(item.clientId, 'executing', { node: null, prompt_id: item.promptId });
  }

  private async render(scene: Scene): Promise<Buffer> {
    if (!scene.baseImage)
      return renderImage({ prompt: scene.prompt, width: scene.width, height: scene.height, format: 'png', seed: scene.seed });
    const base = scene.invert ? await (await loadSharp())(scene.baseImage).negate({ alpha: false }).png().toBuffer() : scene.baseImage;
    return renderImage({
      prompt: scene.prompt,
      width: scene.width,
      height: scene.height,
      format: 'png',
      seed: scene.seed,
      baseImage: base,
    });
  }

  /** What the graph draws, with the image its LoadImage reads (that image's size when no latent sets one). */
  private async sceneOf(graph: ApiGraph): Promise<Scene> {
    const scene = sceneOf(graph);
    const load = Object.values(graph).find((entry) => entry.class_type === 'LoadImage');
    const baseImage = load ? this.host.readFile({ filename: String(load.inputs.image), subfolder: '', type: 'input' }) : undefined;
    if (!baseImage) return scene;
    const hasLatent = Object.values(graph).some((entry) => entry.class_type === 'EmptyLatentImage');
    if (hasLatent) return { ...scene, baseImage };
    const { width, height } = await (await loadSharp())(baseImage).metadata();
    return { ...scene, baseImage, width: width ?? scene.width, height: height ?? scene.height };
  }
}

interface Scene {
  readonly prompt: string;
  readonly width: number;
  readonly height: number;
  readonly seed: number;
  readonly triggers: ReturnType<typeof parsePromptTriggers<FlowTrigger>>['triggers'];
  readonly baseImage?: Buffer;
  readonly invert: boolean;
}

const previewSize = (scene: Scene) => {
  const scale = Math.min(1, PREVIEW_SIDE / Math.max(scene.width, scene.height));
  return { width: Math.max(1, Math.round(scene.width * scale)), height: Math.max(1, Math.round(scene.height * scale)) };
};

/** What the graph draws: the positive prompt, the latent's size, the seed (or a loaded image and its size). */
function sceneOf(graph: ApiGraph): Scene {
  const nodes = Object.values(graph);
  const sampler = nodes.find((entry) => entry.class_type === 'KSampler');
  const positive =
    sampler && isLink(sampler.inputs.positive)
      ? graph[sampler.inputs.positive[0]]
      : nodes.find((entry) => entry.class_type === 'CLIPTextEncode');
  const text = typeof positive?.inputs.text === 'string' ? positive.inputs.text : '';
  const { triggers, cleaned } = parsePromptTriggers(text, FLOW_TRIGGERS);
  const latent = nodes.find((entry) => entry.class_type === 'EmptyLatentImage');
  const width = Number(latent?.inputs.width) || 512;
  const height = Number(latent?.inputs.height) || 512;
  const seed = Number(sampler?.inputs.seed) || 0;
  return {
    prompt: cleaned || 'flow',
    width,
    height,
    seed: seed % 2 ** 31,
    triggers,
    invert: nodes.some((entry) => entry.class_type === 'ImageInvert'),
  };
}
