// Child process: a studio with a throwaway state dir, its api lane pointed at a simulator.
//   argv[2] = JSON { apiBaseUrl, apiKey }
//   out { type: 'ready', url }
//   in  { type: 'stop' }
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startStudio } from '../../src/studio/main.js';

const { apiBaseUrl, apiKey } = JSON.parse(process.argv[2]) as { apiBaseUrl: string; apiKey: string };
const home = mkdtempSync(join(tmpdir(), 'svc-bench-'));
const studio = await startStudio({ env: { SVC_HOME: home, PATH: process.env.PATH, OMNI_API_KEY: apiKey }, port: 0, descriptor: false, upstreams: { api: apiBaseUrl } });
process.send?.({ type: 'ready', url: studio.url });
process.on('message', async (message: { type: string }) => {
  if (message.type !== 'stop') return;
  await studio.close();
  rmSync(home, { recursive: true, force: true });
  process.exit(0);
});
