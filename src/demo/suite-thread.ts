import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import type { SimulatorSuite } from '../sim/suite.js';
import type { DemoGuide } from '../studio/api/index.js';

// The demo's simulators on a thread of their own. They stand in for vendors
// that run on other machines: on the studio's event loop, every image they
// render and stream (some 8 ms of work each) took turns from the studio's own
// requests. The thread runs this same module (whatever file it was built
// into), so the bundle needs no entry of its own; the simulators' code (the
// demo guide's trigger lists included) loads on the thread alone.

/** What the thread sends back once every simulator listens: the suite's addresses, keys and sessions. */
export type SuiteFacts = Pick<SimulatorSuite, 'upstreams' | 'keys' | 'sessions' | 'env'>;

const MARK = 'svcDemoSimulators';

type FromThread = { type: 'ready'; facts: SuiteFacts; guide: DemoGuide } | { type: 'failed'; message: string } | { type: 'closed' };

export interface SuiteThread {
  readonly facts: SuiteFacts;
  /** What the simulators can be made to do (demo/guide.ts, read on the thread). */
  readonly guide: DemoGuide;
  close(): Promise<void>;
}

/**
 * The thread's code: an import of this module. Run from its TypeScript source (tests, through
 * tsx), tsx's loader is registered first: Node 20's worker threads do not take `--import tsx`.
 */
function threadCode(): string {
  const self = JSON.stringify(import.meta.url);
  if (!import.meta.url.endsWith('.ts')) return `import(${self});`;
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  return `import(${tsx}).then(({ register }) => { register(); return import(${self}); });`;
}

/** Starts the demo's simulator suite on a worker thread; resolves once it listens. */
export function startSuiteThread(): Promise<SuiteThread> {
  const worker = new Worker(threadCode(), { eval: true, workerData: { [MARK]: true } });
  return new Promise((resolve, reject) => {
    const onExit = (code: number) => reject(new Error(`The simulators' thread exited (code ${code}) before it listened.`));
    worker.once('error', reject);
    worker.once('exit', onExit);
    worker.once('message', (message: FromThread) => {
      worker.off('exit', onExit);
      if (message.type === 'failed') {
        void worker.terminate();
        return reject(new Error(message.message));
      }
      if (message.type !== 'ready') return reject(new Error(`The simulators' thread said ${message.type} before it listened.`));
      resolve({
        facts: message.facts,
        guide: message.guide,
        close: async () => {
          if (worker.threadId === -1) return;
          // The simulators close their servers, then the thread goes (whatever handle one left open).
          const closed = new Promise<void>((done) => {
            worker.once('message', () => done());
            worker.once('exit', () => done());
          });
          worker.postMessage('close');
          await closed;
          await worker.terminate();
        },
      });
    });
  });
}

/** The thread's side: the suite started, its facts sent, closed when asked. */
async function serveSuite(): Promise<void> {
  const port = parentPort as NonNullable<typeof parentPort>;
  let suite: SimulatorSuite;
  let guide: DemoGuide;
  try {
    const [{ startSimulatorSuite }, guideModule] = await Promise.all([import('../sim/suite.js'), import('./guide.js')]);
    guide = guideModule.DEMO_GUIDE;
    suite = await startSimulatorSuite({ demo: true });
  } catch (error) {
    port.postMessage({ type: 'failed', message: (error as Error).message } satisfies FromThread);
    return;
  }
  const { upstreams, keys, sessions, env } = suite;
  port.on('message', (message: unknown) => {
    if (message !== 'close') return;
    void suite.close().finally(() => port.postMessage({ type: 'closed' } satisfies FromThread));
  });
  port.postMessage({ type: 'ready', facts: { upstreams, keys, sessions, env }, guide } satisfies FromThread);
}

if (!isMainThread && (workerData as Record<string, unknown> | null)?.[MARK] === true) void serveSuite();
