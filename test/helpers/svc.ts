import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

export const SVC = join(import.meta.dirname, '../../src/cli/svc.ts');
/** The built program, as the README's commands run it (`npm run build` or `npm ci` makes it). */
export const BUILT_SVC = join(import.meta.dirname, '../../bin/svc.js');

export interface SvcRunOptions {
  /** Run bin/svc.js (the bundle) instead of the sources through tsx. */
  readonly built?: boolean;
  /** Options for node itself, before the program (`--cpu-prof`, which NODE_OPTIONS does not take). */
  readonly nodeArgs?: readonly string[];
}

const programArgs = (options: SvcRunOptions): string[] => [
  ...(options.nodeArgs ?? []),
  ...(options.built ? [BUILT_SVC] : ['--import', 'tsx', SVC]),
];

/** Runs `svc` as a child process (through tsx, so the test needs no build). */
export function runSvc(
  args: string[],
  env: Record<string, string | undefined> = {},
  timeoutMs = 20_000,
  options: SvcRunOptions = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...programArgs(options), ...args], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}

export interface RunningSvc {
  readonly child: ChildProcess;
  /** The first line the program printed, parsed as JSON. */
  readonly first: Record<string, unknown>;
  /** Everything on stderr so far (for failure messages). */
  stderr(): string;
  /** SIGKILL (a crash) or SIGTERM (a clean stop); resolves when the process is gone. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts a long-running `svc` command (serve, sim serve) and waits for its first JSON line on stdout. */
export function startSvc(
  args: string[],
  env: Record<string, string | undefined> = {},
  timeoutMs = 20_000,
  options: SvcRunOptions = {},
): Promise<RunningSvc> {
  const child = spawn(process.execPath, [...programArgs(options), ...args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  return new Promise((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => {
      void stop('SIGKILL');
      reject(new Error(`svc ${args.join(' ')} printed no line within ${timeoutMs} ms: ${stderr}`));
    }, timeoutMs);
    child.stdout?.on('data', (chunk) => {
      stdout += chunk;
      const newline = stdout.indexOf('\n');
      if (newline === -1) return;
      clearTimeout(timer);
      try {
        resolve({ child, first: JSON.parse(stdout.slice(0, newline)) as Record<string, unknown>, stderr: () => stderr, stop });
      } catch (error) {
        void stop('SIGKILL');
        reject(error);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`svc ${args.join(' ')} exited (${code}) before printing: ${stderr}`));
    });
  });
}
