import { TreeProcess } from '../common/process/tree-process.js';
import type { WorkerCommand } from './config.js';
import { MANAGER_LIMITS } from './limits.js';

/** How long a launched worker gets to shut down cleanly (it stops its own agents) before its tree is killed. */
const WORKER_STOP_GRACE_MS = 12_000;

export interface LaunchOptions {
  command: WorkerCommand;
  home: string;
  demo: boolean;
  env: Readonly<Record<string, string | undefined>>;
}

/**
 * A chat server the manager started itself: `svc-chat serve --port 0 --json`
 * in its own process group, its state in its own home. The start line names
 * the URL it bound.
 */
export class LaunchedWorker {
  private process: TreeProcess | undefined;

  constructor(private readonly options: LaunchOptions) {}

  get running(): boolean {
    return this.process !== undefined;
  }

  get pid(): number | undefined {
    return this.process?.pid;
  }

  /** Starts it; resolves with its origin once it printed its start line. */
  start(): Promise<string> {
    if (this.process) return Promise.reject(new Error('The worker is already running.'));
    return new Promise<string>((resolve, reject) => {
      let output = '';
      let stderr = '';
      let settled = false;
      const settle = (error: Error | undefined, origin?: string) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (error) reject(error);
        else resolve(origin as string);
      };
      const args = ['serve', '--port', '0', '--json', '--home', this.options.home, ...(this.options.demo ? ['--demo'] : [])];
      const child = new TreeProcess({
        file: this.options.command.file,
        args: [...this.options.command.prefixArgs, ...args],
        env: this.options.env,
        killGraceMs: WORKER_STOP_GRACE_MS,
        onStdout: (chunk) => {
          output += chunk.toString('utf8');
          const line = output.split('\n')[0];
          if (!output.includes('\n')) return;
          try {
            settle(undefined, new URL((JSON.parse(line) as { url: string }).url).origin);
          } catch {
            settle(new Error(`The worker printed an unexpected start line: ${line.slice(0, 200)}`));
          }
        },
        onStderr: (chunk) => {
          stderr = (stderr + chunk.toString('utf8')).slice(-2000);
        },
      });
      this.process = child;
      const timer = setTimeout(() => {
        child.stop();
        settle(new Error(`The worker did not start within ${MANAGER_LIMITS.launchTimeoutMs} ms.`));
      }, MANAGER_LIMITS.launchTimeoutMs);
      void child.finished.then((end) => {
        if (this.process === child) this.process = undefined;
        settle(
          new Error(
            `The worker exited before it started (${end.spawnError ?? `code ${end.exitCode}`}): ${stderr.trim().split('\n').at(-1) ?? ''}`,
          ),
        );
      });
    });
  }

  /** Stops it (SIGTERM to its group: a clean shutdown; SIGKILL after the grace period). */
  async stop(): Promise<void> {
    const child = this.process;
    if (!child) return;
    child.stop();
    await child.finished;
  }

  /** SIGKILLs it at once (the manager is exiting without a clean close). */
  killNow(): void {
    this.process?.killNow();
  }
}
