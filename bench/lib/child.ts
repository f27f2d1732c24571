import { fork, type ChildProcess } from 'node:child_process';

/** A TypeScript module run in its own Node process (through tsx), talked to over IPC. */
export interface Child {
  process: ChildProcess;
  send(message: object): void;
  /** The next message whose `type` matches. */
  next<T extends { type: string }>(type: T['type'], timeoutMs?: number): Promise<T>;
  stop(): Promise<void>;
}

export function startChild(modulePath: string, args: string[] = [], options: { execArgv?: string[] } = {}): Child {
  // BENCH_CHILD_PROF=<dir>: each child writes a CPU profile there when it stops.
  const profile = process.env.BENCH_CHILD_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CHILD_PROF}`] : [];
  const child = fork(modulePath, args, {
    execArgv: ['--import', 'tsx', ...profile, ...(options.execArgv ?? [])],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const waiting: Array<{ type: string; resolve: (message: never) => void }> = [];
  child.on('message', (message: { type: string }) => {
    const index = waiting.findIndex((entry) => entry.type === message.type);
    if (index !== -1) waiting.splice(index, 1)[0].resolve(message as never);
  });
  return {
    process: child,
    send: (message) => child.send(message),
    next: <T extends { type: string }>(type: T['type'], timeoutMs = 60_000) =>
      new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${modulePath}: no '${type}' message within ${timeoutMs} ms`)), timeoutMs);
        const onExit = (code: number | null) => reject(new Error(`${modulePath} exited (${code}) before '${type}'`));
        child.once('exit', onExit);
        waiting.push({
          type,
          resolve: (message: T) => {
            clearTimeout(timer);
            child.off('exit', onExit);
            resolve(message);
          },
        } as { type: string; resolve: (message: never) => void });
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        // Asked first (a child that handles `stop` exits cleanly, writing a --cpu-prof profile), then killed.
        const timer = setTimeout(() => child.kill(), 3000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        if (child.connected) child.send({ type: 'stop' });
        else child.kill();
      }),
  };
}
