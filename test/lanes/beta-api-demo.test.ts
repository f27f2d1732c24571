import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemo, type Demo } from '../../src/demo/demo.js';
import { makeTempHome, startTestStudio, type TestStudio } from '../helpers/studio.js';
import { runSvc, startSvc, type RunningSvc } from '../helpers/svc.js';
import { expectError, expectImage } from './beta-api-rig.js';

// The bar for beta-api on a demo studio: `svc serve --demo` (a real
// process) runs 16:9 at 2K as a 2752x1536 image costing 0.101, refuses
// `quality`, answers a simulated safety block; the cloud mode works with the
// demo simulator's service account. And `svc sim serve` prints every variable
// a studio needs for both modes.

describe('beta-api on `svc serve --demo`', () => {
  const home = makeTempHome('svc-beta-demo-');
  let demo: RunningSvc;
  let url: string;
  const post = (body: Record<string, unknown>) =>
    fetch(`${url}/api/generate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ provider: 'beta-api', ...body }),
    });

  beforeAll(async () => {
    demo = await startSvc(['serve', '--demo', '--port', '0', '--json'], { SVC_HOME: home });
    url = String(demo.first.url);
  });

  afterAll(async () => {
    await demo?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it('16:9 at 2K: a 2752x1536 image, its cost 0.101', async () => {
    const result = await expectImage(await post({ prompt: 'a demo harbour', options: { aspectRatio: '16:9', resolution: '2K' } }));
    expect(result.images[0]).toMatchObject({ width: 2752, height: 1536 });
    expect(result.settings).toMatchObject({ mode: 'apikey', size: '2752x1536', estimatedCostUsd: 0.101 });
  });

  it('svc generate --option aspectRatio=16:9 --option resolution=2K does the same from the command line', async () => {
    const run = await runSvc([
      'generate',
      'a cli harbour',
      '--provider',
      'beta-api',
      '--option',
      'aspectRatio=16:9',
      '--option',
      'resolution=2K',
      '--json',
      '--server',
      url,
    ]);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    const result = JSON.parse(run.stdout) as { images: { width: number; height: number }[]; settings: { estimatedCostUsd: number } };
    expect(result.images[0]).toMatchObject({ width: 2752, height: 1536 });
    expect(result.settings.estimatedCostUsd).toBe(0.101);
  });

  it('quality is refused with a code naming it; a simulated safety block is BETA_API_SAFETY_BLOCKED', async () => {
    const refused = await expectError(await post({ prompt: 'x', quality: 'high' }), 400, 'LANE_UNSUPPORTED');
    expect(refused.error.details).toMatchObject({ field: 'quality' });
    await expectError(await post({ prompt: 'x [sim:block-image]' }), 422, 'BETA_API_SAFETY_BLOCKED');
  });
});

describe('beta-api cloud mode on a demo studio', () => {
  let demo: Demo;
  let studio: TestStudio;

  beforeAll(async () => {
    const home = makeTempHome('svc-beta-demo-cloud-');
    demo = await startDemo({ SVC_HOME: home });
    // The demo's key plus the demo simulator's service account, no saved mode: the cloud mode.
    studio = await startTestStudio({
      env: { SVC_HOME: home, CLOUD_SERVICE_ACCOUNT_JSON: demo.suite.simulators.beta.serviceAccountJson() },
      demo: demo.options,
      onClose: () => demo.close(),
    });
  });

  afterAll(async () => {
    await studio?.stop();
  });

  it('works with a service-account JSON: 1K 1:1, and says so', async () => {
    const response = await studio.request('/api/generate', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ provider: 'beta-api', prompt: 'a cloud demo', options: { aspectRatio: '21:9' } }),
    });
    const result = await expectImage(response);
    expect(result.images[0]).toMatchObject({ width: 1024, height: 1024 });
    expect(result.settings).toMatchObject({
      mode: 'cloud',
      aspectRatio: '1:1',
      resolution: '1K',
      ignoredOptions: ['aspectRatio'],
      estimatedCostUsd: 0.067,
    });
  });
});

describe('beta-api through `svc sim serve`', () => {
  let simulators: RunningSvc;

  beforeAll(async () => {
    simulators = await startSvc(['sim', 'serve']);
  });

  afterAll(async () => {
    await simulators?.stop();
  });

  it('prints the key surface, the cloud surface, the token endpoint and the key', async () => {
    const { upstreams, env } = simulators.first as { upstreams: Record<string, string>; env: Record<string, string> };
    expect(env).toMatchObject({
      SVC_BETA_BASE_URL: upstreams['beta-api'],
      SVC_BETA_CLOUD_URL: upstreams['beta-api'],
      SVC_BETA_TOKEN_URL: `${upstreams['beta-api']}/token`,
      BETA_API_KEY: 'sim-beta-key',
    });
    const studio = await startTestStudio({ env: { ...env } });
    try {
      const response = await studio.request('/api/generate', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ provider: 'beta-api', prompt: 'via sim serve', options: { aspectRatio: '9:16', resolution: '512px' } }),
      });
      expect((await expectImage(response)).images[0]).toMatchObject({ width: 384, height: 688 });
    } finally {
      await studio.stop();
    }
  });
});
