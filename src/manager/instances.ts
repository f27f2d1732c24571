import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { ServiceError } from './errors.js';
import type { EventChannel } from '../common/events/channel.js';
import type { ChannelEvent } from '../common/events/types.js';
import { readJsonFile, writeJsonFile } from '../common/json-file.js';
import type { ManagerConfig } from './config.js';
import { LaunchedWorker } from './launcher.js';
import { MANAGER_LIMITS } from './limits.js';
import { chatServerCheck } from './worker-http.js';
import { WorkerFollower } from './worker-follower.js';
import type { InstanceDetail, InstanceSource, InstanceSummary } from './views.js';

export type { InstanceDetail, InstanceSource, InstanceSummary } from './views.js';
import { workerOrigin } from './worker-url.js';

/** What instances.json keeps of an instance (discovered ones are found again). */
interface InstanceRecord {
  id: string;
  origin?: string;
  source: InstanceSource;
  token?: string;
  addedAt: string;
  /** Launched workers: their state dir and mode, to start them again. */
  launch?: { home: string; demo: boolean };
}

interface Instance {
  record: InstanceRecord;
  follower?: WorkerFollower;
  launched?: LaunchedWorker;
}

const newId = () => `w-${randomBytes(4).toString('hex')}`;

/**
 * The registry of workers: added by URL, discovered on a port range, or
 * launched here. Each one is followed server-side; every change of its cached
 * state is published on the manager's own channel as `instance_update`.
 */
export class Instances {
  private readonly instances = new Map<string, Instance>();
  private discoveryTimer: NodeJS.Timeout | undefined;
  private readonly discovering = new Set<string>();
  private closed = false;
  /** Test and bench hook: every cache update, after it was applied (the event that caused it, when one did). */
  onCacheUpdate: ((instanceId: string, change: string, event?: ChannelEvent) => void) | undefined;

  constructor(
    private readonly config: ManagerConfig,
    private readonly channel: EventChannel,
    private readonly env: Readonly<Record<string, string | undefined>>,
  ) {}

  /** Loads instances.json, follows the configured workers and starts discovery. */
  async start(): Promise<void> {
    const saved = readJsonFile<{ instances?: InstanceRecord[] }>(this.config.instancesFile, {});
    for (const record of saved.instances ?? []) {
      const instance: Instance = { record };
      this.instances.set(record.id, instance);
      // Launched workers were stopped with the last manager: they wait for a start.
      if (record.source === 'launched' && record.launch) instance.launched = this.launcher(record.launch);
      else if (record.origin) this.follow(instance);
    }
    for (const url of this.config.workers) {
      const origin = workerOrigin(url);
      if (!this.byOrigin(origin)) this.register({ id: newId(), origin, source: 'added', addedAt: new Date().toISOString() });
    }
    if (this.config.discover) {
      const discover = () => {
        void this.discover().finally(() => {
          if (!this.closed) this.discoveryTimer = setTimeout(discover, this.config.discoveryIntervalMs);
        });
      };
      discover();
    }
  }

  list(): InstanceSummary[] {
    return [...this.instances.values()].map((instance) => this.summary(instance));
  }

  detail(id: string): InstanceDetail {
    const instance = this.get(id);
    return { ...this.summary(instance), sessions: [...(instance.follower?.state.sessions.values() ?? [])] };
  }

  recentEvents(id: string, limit: number) {
    return (this.get(id).follower?.state.recent ?? []).slice(-limit).reverse();
  }

  healthHistory(id: string) {
    return [...(this.get(id).follower?.state.healthHistory ?? [])].reverse();
  }

  /** Follows one more worker, which must answer as a chat server. */
  async add(url: string, token: string | undefined): Promise<InstanceSummary> {
    const origin = workerOrigin(url);
    if (this.byOrigin(origin))
      throw new ServiceError('INSTANCE_EXISTS', `${origin} is already followed.`, { details: { id: this.byOrigin(origin)?.record.id } });
    this.assertRoom();
    const refusal = await chatServerCheck(origin, token ?? this.config.workerToken);
    if (refusal) throw new ServiceError('INSTANCE_UNREACHABLE', `${origin} is not followed: ${refusal}.`, { details: { url: origin } });
    if (this.byOrigin(origin)) throw new ServiceError('INSTANCE_EXISTS', `${origin} is already followed.`);
    const instance = this.register({ id: newId(), origin, source: 'added', addedAt: new Date().toISOString(), ...(token && { token }) });
    return this.summary(instance);
  }

  /** Starts a new local worker (its state under the manager's home) and follows it. */
  async launch(demo: boolean): Promise<InstanceSummary> {
    this.assertRoom();
    const id = newId();
    const record: InstanceRecord = {
      id,
      source: 'launched',
      addedAt: new Date().toISOString(),
      launch: { home: join(this.config.home, 'workers', id), demo },
    };
    const instance: Instance = { record, launched: this.launcher(record.launch as NonNullable<InstanceRecord['launch']>) };
    this.instances.set(id, instance);
    try {
      await this.startLaunched(instance);
    } catch (error) {
      this.instances.delete(id);
      throw new ServiceError('INSTANCE_UNREACHABLE', `The worker did not start: ${(error as Error).message}`);
    }
    this.channel.publish('manager', 'instance_added', { instanceId: id });
    return this.summary(instance);
  }

  async remove(id: string): Promise<void> {
    const instance = this.get(id);
    this.instances.delete(id);
    instance.follower?.stop();
    await instance.launched?.stop();
    this.save();
    this.channel.publish('manager', 'instance_removed', { instanceId: id });
  }

  async control(id: string, action: 'start' | 'stop' | 'restart'): Promise<InstanceSummary> {
    const instance = this.get(id);
    if (!instance.launched)
      throw new ServiceError('INSTANCE_NOT_MANAGED', `Worker ${id} was not launched by this manager.`, {
        details: { id, source: instance.record.source },
      });
    if (action !== 'start') {
      instance.follower?.stop();
      await instance.launched.stop();
      instance.follower?.markStopped();
    }
    if (action !== 'stop' && !instance.launched.running) {
      try {
        await this.startLaunched(instance);
      } catch (error) {
        throw new ServiceError('INSTANCE_UNREACHABLE', `The worker did not start: ${(error as Error).message}`);
      }
    }
    this.changed(instance, action);
    return this.summary(instance);
  }

  /** Stops following everything; launched workers are stopped cleanly. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.discoveryTimer);
    for (const instance of this.instances.values()) instance.follower?.stop();
    await Promise.all([...this.instances.values()].map((instance) => instance.launched?.stop()));
  }

  /** Synchronous last resort when the process exits without close(): launched workers die with it. */
  killLaunchedNow(): void {
    for (const instance of this.instances.values()) instance.launched?.killNow();
  }

  private launcher(launch: NonNullable<InstanceRecord['launch']>): LaunchedWorker {
    return new LaunchedWorker({ command: this.config.workerCommand, home: launch.home, demo: launch.demo, env: this.env });
  }

  private async startLaunched(instance: Instance): Promise<void> {
    const origin = await (instance.launched as LaunchedWorker).start();
    instance.record.origin = origin;
    instance.follower?.stop();
    this.follow(instance);
    this.save();
  }

  private register(record: InstanceRecord): Instance {
    const instance: Instance = { record };
    this.instances.set(record.id, instance);
    this.follow(instance);
    this.save();
    this.channel.publish('manager', 'instance_added', { instanceId: record.id });
    return instance;
  }

  private follow(instance: Instance): void {
    const follower = new WorkerFollower({
      origin: instance.record.origin as string,
      token: instance.record.token ?? this.config.workerToken,
      healthIntervalMs: this.config.healthIntervalMs,
      onChange: (change, event) => {
        if (instance.follower !== follower) return;
        this.onCacheUpdate?.(instance.record.id, change, event);
        this.changed(instance, change);
      },
    });
    instance.follower = follower;
    follower.start();
  }

  private changed(instance: Instance, change: string): void {
    if (!this.instances.has(instance.record.id)) return;
    this.channel.publish('manager', 'instance_update', { instanceId: instance.record.id, change, instance: this.summary(instance) });
  }

  private async discover(): Promise<void> {
    const range = this.config.discover;
    if (!range) return;
    const probes: Promise<void>[] = [];
    for (let port = range.from; port <= range.to; port += 1) {
      const origin = `http://127.0.0.1:${port}`;
      if (this.byOrigin(origin) || this.discovering.has(origin)) continue;
      this.discovering.add(origin);
      probes.push(
        // A port that does not prove it holds the token is not followed (and is sent nothing secret).
        chatServerCheck(origin, this.config.workerToken)
          .then((refusal) => {
            if (refusal === undefined && !this.closed && !this.byOrigin(origin) && this.instances.size < MANAGER_LIMITS.instancesMax) {
              this.register({ id: newId(), origin, source: 'discovered', addedAt: new Date().toISOString() });
            }
          })
          .finally(() => this.discovering.delete(origin)),
      );
    }
    await Promise.all(probes);
  }

  private summary(instance: Instance): InstanceSummary {
    const state = instance.follower?.state;
    const launched = instance.launched;
    const summary: InstanceSummary = {
      id: instance.record.id,
      url: instance.record.origin ?? null,
      source: instance.record.source,
      managed: launched !== undefined,
      health: launched && !launched.running ? 'stopped' : (state?.health ?? 'connecting'),
      lastSeen: state?.lastSeen ?? null,
      currentSessionId: state?.currentSessionId ?? null,
      latestMessage: state?.latestMessage ?? null,
      agentState: state?.agentState() ?? 'idle',
      queue: state?.queue() ?? { pending: 0, active: false },
      goal: state?.goal ?? null,
      orc: state?.orc ?? { phase: 'idle', status: 'idle' },
      sessionCount: state?.sessions.size ?? 0,
      turns: state ? [...state.turns] : [],
    };
    if (launched) summary.running = launched.running;
    if (state?.version) summary.version = state.version;
    if (state?.demo !== undefined) summary.demo = state.demo;
    if (state?.lastError && summary.health !== 'online') summary.lastError = state.lastError;
    return summary;
  }

  private get(id: string): Instance {
    const instance = this.instances.get(id);
    if (!instance) throw new ServiceError('INSTANCE_NOT_FOUND', `No worker instance ${id}.`, { details: { id } });
    return instance;
  }

  private byOrigin(origin: string): Instance | undefined {
    for (const instance of this.instances.values()) if (instance.record.origin === origin) return instance;
    return undefined;
  }

  private assertRoom(): void {
    if (this.instances.size >= MANAGER_LIMITS.instancesMax) {
      throw new ServiceError('SERVICE_UNAVAILABLE', `The manager already follows ${MANAGER_LIMITS.instancesMax} workers.`);
    }
  }

  /** instances.json: added and launched workers (tokens included: the file is private). */
  private save(): void {
    const records = [...this.instances.values()].map((instance) => instance.record).filter((record) => record.source !== 'discovered');
    writeJsonFile(this.config.instancesFile, { instances: records }, { private: true });
  }
}
