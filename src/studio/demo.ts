import { join } from 'node:path';
import { writeJsonFile } from '../common/json-file.js';
import { startDemoSimulators } from '../sim/demo.js';
import type { StudioOptions } from './context.js';
import { studioPaths } from './paths.js';

export interface Demo {
  readonly options: NonNullable<StudioOptions['demo']>;
  close(): Promise<void>;
}

/**
 * Demo mode: start every simulator in-process and hand the studio their URLs
 * and placeholder credentials. The demo OAuth session goes to its own file so
 * a real session of the user's is never touched.
 */
export async function startDemo(env: Readonly<Record<string, string | undefined>>): Promise<Demo> {
  const simulators = await startDemoSimulators();
  const oauthAuthFile = join(studioPaths(env).home, 'demo', 'oauth-auth.json');
  writeJsonFile(oauthAuthFile, simulators.credentials.oauthSession, { private: true });
  return {
    options: { upstreams: simulators.upstreams, keys: simulators.credentials.keys, oauthAuthFile },
    close: () => simulators.close(),
  };
}
