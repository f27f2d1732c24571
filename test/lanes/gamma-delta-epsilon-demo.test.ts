import { rmSync } from 'node:fs';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemo, type Demo } from '../../src/demo/demo.js';
import { startStudio, type RunningStudio } from '../../src/studio/main.js';
import { makeTempHome } from '../helpers/studio.js';
import { runSvc } from '../helpers/svc.js';

// The bar on a demo studio (`svc serve --demo`: the simulators in-process, no
// keys configured): gamma, delta and epsilon each return a real image, and
// `svc models <lane>` and the CLI's `--option` reach them.

const home = makeTempHome('svc-gde-demo-');
let demo: Demo;
let studio: RunningStudio;

beforeAll(async () => {
  const env = { SVC_HOME: home, PATH: process.env.PATH };
  demo = await startDemo(env);
  studio = await startStudio({ env, port: 0, descriptor: false, demo: demo.options, onClose: demo.close });
});
afterAll(async () => {
  await studio?.close();
  rmSync(home, { recursive: true, force: true });
});

const post = (body: unknown) =>
  fetch(`${studio.url}/api/generate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('the demo studio', () => {
  it('is ready on gamma, delta and epsilon without any key of the user', async () => {
    const body = (await (await fetch(`${studio.url}/api/providers`)).json()) as { providers: { id: string; state: string }[] };
    for (const lane of ['gamma', 'delta', 'epsilon'])
      expect({ lane, state: body.providers.find((provider) => provider.id === lane)?.state }).toEqual({ lane, state: 'ready' });
  });

  it('each lane returns a real image, decodable at the size it says', async () => {
    const requests = [
      { provider: 'gamma', prompt: 'a red kite over green hills', size: '1024x1536' },
      { provider: 'delta', prompt: 'a red kite over green hills', size: '1280x720' },
      { provider: 'epsilon', prompt: 'a red kite over green hills', negativePrompt: 'blurry', options: { sampler: 'k_euler', steps: 28 } },
    ];
    const results = await Promise.all(
      requests.map(async (request) => {
        const response = await post(request);
        expect({ provider: request.provider, status: response.status }).toEqual({ provider: request.provider, status: 200 });
        return (await response.json()) as { provider: string; images: { url: string; width: number; height: number; format: string }[] };
      }),
    );
    const expected = [
      { width: 1024, height: 1536, format: 'png' },
      { width: 1280, height: 720, format: 'jpeg' },
      { width: 832, height: 1216, format: 'png' },
    ];
    for (const [index, result] of results.entries()) {
      expect(result.images[0]).toMatchObject(expected[index]);
      const file = Buffer.from(await (await fetch(`${studio.url}${result.images[0].url}`)).arrayBuffer());
      const { width, height, format } = await sharp(file).metadata();
      expect({ width, height, format }).toEqual(expected[index]);
    }
  });

  it('svc models lists each lane with its models; --option reaches epsilon and a bad value names the field', async () => {
    const lanes = [
      ['gamma', ['gamma-image-2']],
      ['delta', ['image-01', 'image-01-live']],
      [
        'epsilon',
        ['epsilon-diffusion-5-full', 'epsilon-diffusion-5-curated', 'epsilon-diffusion-4.5-full', 'epsilon-diffusion-4.5-curated'],
      ],
    ] as const;
    // The CLI runs as a program (one process each, side by side).
    const [bad, ...listed] = await Promise.all([
      runSvc(['generate', 'a fox', '--provider', 'epsilon', '--option', 'sampler=nope', '--json', '--server', studio.url]),
      ...lanes.map(([lane]) => runSvc(['models', lane, '--json', '--server', studio.url])),
    ]);
    for (const [index, [lane, models]] of lanes.entries()) {
      expect(listed[index].code).toBe(0);
      const targets = (JSON.parse(listed[index].stdout) as { models: { target: string; state: string }[] }).models;
      expect(targets.map((entry) => entry.target)).toEqual(models.map((model) => `${lane}/${model}`));
      expect(targets.every((entry) => entry.state === 'ready')).toBe(true);
    }
    expect(bad.code).toBe(5);
    expect(bad.stdout + bad.stderr).toContain('options.sampler');
  });
});
