import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempHome, startTestStudio, type TestStudio } from '../helpers/studio.js';
import { runSvc, startSvc, type RunningSvc } from '../helpers/svc.js';
import { expectError, groupMembers, imageDataUrl, waitFor } from './cligen-rig.js';

// The bar for cligen on a demo studio: `svc serve --demo` (a real
// process) puts the fake CLI in front of the lane — a 1024x1024 JPEG, 4
// references refused, a hanging CLI ending in CLIGEN_TIMEOUT with no process
// left behind. And `svc sim serve` prints what a studio needs to run it.

/** Processes whose parent is `ppid` and whose command line names the fake CLI. */
function fakeCliChildren(ppid: number): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent === ppid && readFileSync(`/proc/${name}/cmdline`, 'utf8').includes('fake-cligen.mjs')) found.push(Number(name));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

describe('cligen on `svc serve --demo`', () => {
  const home = makeTempHome('svc-cligen-demo-');
  let demo: RunningSvc;
  let url: string;
  const post = (body: Record<string, unknown>) =>
    fetch(`${url}/api/generate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ provider: 'cligen', ...body }),
    });

  beforeAll(async () => {
    demo = await startSvc(['serve', '--demo', '--port', '0', '--json'], { SVC_HOME: home, SVC_CLIGEN_TIMEOUT_MS: '2000' });
    url = String(demo.first.url);
  });

  afterAll(async () => {
    await demo?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it('the lane is ready with the fake CLI, and returns a 1024x1024 JPEG', async () => {
    const providers = (await (await fetch(`${url}/api/providers`)).json()) as {
      providers: { id: string; state: string; reason: string }[];
    };
    expect(providers.providers.find((provider) => provider.id === 'cligen')).toMatchObject({
      state: 'ready',
      reason: expect.stringContaining('fake-cligen.mjs'),
    });
    const response = await post({ prompt: 'a demo crane' });
    const body = (await response.json()) as {
      images: { width: number; height: number; format: string }[];
      settings: Record<string, unknown>;
    };
    expect(response.status).toBe(200);
    expect(body.images[0]).toMatchObject({ width: 1024, height: 1024, format: 'jpeg' });
    expect(body.settings).toMatchObject({ estimatedCostUsd: 0 });
  });

  it('svc generate --provider cligen gets the same JPEG from the command line', async () => {
    const run = await runSvc(['generate', 'a cli crane', '--provider', 'cligen', '--json', '--server', url]);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    expect((JSON.parse(run.stdout) as { images: unknown[] }).images[0]).toMatchObject({ width: 1024, height: 1024, format: 'jpeg' });
  });

  it('4 references: CLIGEN_REF_TOO_MANY', async () => {
    const png = await imageDataUrl('png');
    await expectError(await post({ prompt: 'x', references: [png, png, png, png] }), 400, 'CLIGEN_REF_TOO_MANY');
  });

  it('a hanging CLI ends in CLIGEN_TIMEOUT, and no process of it is left behind', async () => {
    const pending = post({ prompt: 'x [fake:hang]' });
    const servePid = demo.child.pid ?? 0;
    const [pid] = await waitFor('the fake CLI to run', () => {
      const children = fakeCliChildren(servePid);
      return children.length > 0 && children;
    });
    // It leads its own process group, which holds its grandchild too.
    await waitFor('the grandchild to start', () => groupMembers(pid).length >= 2);
    await expectError(await pending, 504, 'CLIGEN_TIMEOUT');
    await waitFor('the process group to be gone', () => groupMembers(pid).length === 0);
    expect(fakeCliChildren(servePid)).toEqual([]);
  });
});

describe('cligen through `svc sim serve`', () => {
  let simulators: RunningSvc;
  let studio: TestStudio;

  beforeAll(async () => {
    simulators = await startSvc(['sim', 'serve']);
    studio = await startTestStudio({ env: { ...(simulators.first as { env: Record<string, string> }).env } });
  });

  afterAll(async () => {
    await studio?.stop();
    await simulators?.stop();
  });

  it('prints the fake CLI and its private home; a studio with that environment runs it', async () => {
    const { env } = simulators.first as { env: Record<string, string> };
    expect(env.SVC_CLIGEN_BIN).toMatch(/fake-cligen\.mjs$/);
    expect(env.SVC_CLIGEN_HOME).toBeTruthy();
    const response = await studio.request('/api/generate', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ provider: 'cligen', prompt: 'via sim serve' }),
    });
    expect(response.status).toBe(200);
    const runs = readFileSync(`${env.SVC_CLIGEN_HOME}/.gemini/fake-cligen-runs.jsonl`, 'utf8').trim().split('\n');
    expect(JSON.parse(runs.at(-1) ?? '{}')).toMatchObject({ prompt: 'via sim serve' });
  });
});
