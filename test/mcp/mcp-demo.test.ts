import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoStudio, type DemoStudio } from '../helpers/studio.js';
import { runSvc } from '../helpers/svc.js';

// The demo (`svc serve --demo`): both MCP simulators start with it, zeta is
// ready and eta locked; the first command works as a user types it.

let studio: DemoStudio;
let out: string;

beforeAll(async () => {
  studio = await startDemoStudio('svc-mcp-demo-');
  out = mkdtempSync(join(tmpdir(), 'svc-mcp-demo-out-'));
});

afterAll(async () => {
  await studio?.stop();
  rmSync(out, { recursive: true, force: true });
});

describe('the MCP lanes in the demo', () => {
  it('zeta is ready, eta locked with its reason', async () => {
    const providers = (await (await studio.request('/api/providers')).json()) as {
      providers: { id: string; state: string; reason: string }[];
    };
    expect(providers.providers.find((entry) => entry.id === 'zeta')).toMatchObject({ state: 'ready' });
    expect(providers.providers.find((entry) => entry.id === 'eta')).toMatchObject({
      state: 'locked',
      reason: expect.stringMatching(/SVC_ETA_EXECUTABLE/),
    });
  });

  it('svc generate "a kite" --model zeta/nano-banana-pro -o k.png writes the PNG of a history image', async () => {
    const png = join(out, 'k.png');
    const run = await runSvc(
      ['generate', 'a kite', '--model', 'zeta/nano-banana-pro', '-o', png, '--json', '--server', studio.url],
      {},
      60_000,
    );
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(png).subarray(1, 4).toString()).toBe('PNG');
    const { asset } = JSON.parse(run.stdout) as { asset: { filename: string } };
    const history = (await (await studio.request('/api/history?provider=zeta')).json()) as { items: { filename: string }[] };
    expect(history.items.map((item) => item.filename)).toContain(asset.filename);
  }, 70_000);
});
