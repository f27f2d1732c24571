// Child process: a studio with a throwaway state dir, its api lane pointed at a simulator.
//   argv[2] = JSON { apiBaseUrl, apiKey, env? } (env: extra variables, e.g. SVC_MAX_RUNNING_JOBS)
//   out { type: 'ready', url }
//   in  { type: 'stop' } | { type: 'memory', gc?: true } (answers { type: 'memory', usage: process.memoryUsage() }
//       after full collections when asked and the child runs with --expose-gc)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startStudio } from '../../src/studio/main.js';

const {
  apiBaseUrl,
  apiKey,
  env = {},
} = JSON.parse(process.argv[2]) as { apiBaseUrl: string; apiKey: string; env?: Record<string, string> };
const home = mkdtempSync(join(tmpdir(), 'svc-bench-'));
const studio = await startStudio({
  env: { SVC_HOME: home, PATH: process.env.PATH, OMNI_API_KEY: apiKey, ...env },
  port: 0,
  descriptor: false,
  upstreams: { api: apiBaseUrl },
});
process.send?.({ type: 'ready', url: studio.url });
process.on('message', async (message: { type: string; gc?: boolean }) => {
  if (message.type === 'memory') {
    const gc = (globalThis as { gc?: () => void }).gc;
    // Twice, a turn apart: what the first frees may hold buffers whose memory only the second returns.
    if (message.gc && gc) {
      gc();
      await new Promise((resolve) => setImmediate(resolve));
      gc();
    }
    process.send?.({ type: 'memory', usage: process.memoryUsage() });
  }
  if (message.type !== 'stop') return;
  await studio.close();
  rmSync(home, { recursive: true, force: true });
  process.exit(0);
});
