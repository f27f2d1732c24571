import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDemo, type Demo } from '../../src/demo/demo.js';
import { startStudio, type RunningStudio, type StartStudioOptions } from '../../src/studio/main.js';

export interface TestStudio extends RunningStudio {
  home: string;
  /** fetch against the studio with a path. */
  request(path: string, init?: RequestInit): Promise<Response>;
  stop(): Promise<void>;
}

export const makeTempHome = (prefix = 'svc-test-'): string => mkdtempSync(join(tmpdir(), prefix));

/** A real studio on an ephemeral loopback port with its own state dir. */
export async function startTestStudio(
  options: StartStudioOptions & { env?: Record<string, string | undefined> } = {},
): Promise<TestStudio> {
  const home = options.env?.SVC_HOME ?? makeTempHome();
  const studio = await startStudio({
    port: 0,
    descriptor: false,
    ...options,
    env: { PATH: process.env.PATH, ...options.env, SVC_HOME: home },
  });
  return {
    ...studio,
    home,
    request: (path, init) => fetch(`${studio.url}${path}`, init),
    async stop() {
      await studio.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

export type DemoStudio = TestStudio & { readonly demo: Demo };

/** A studio as `svc serve --demo` runs it: every lane on its simulator, the two stopped together. */
export async function startDemoStudio(prefix?: string): Promise<DemoStudio> {
  const home = makeTempHome(prefix);
  const demo = await startDemo({ SVC_HOME: home });
  const studio = await startTestStudio({ env: { SVC_HOME: home }, demo: demo.options, onClose: () => demo.close() });
  return Object.assign(studio, { demo });
}
