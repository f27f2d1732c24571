import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSse } from '../../src/common/events/client.js';
import { makeTempHome, startTestStudio } from '../helpers/studio.js';
import { runSvc, startSvc, type RunningSvc } from '../helpers/svc.js';

// The bar on a demo studio (`svc serve --demo`, a real process, no key
// or session of the user's): `svc generate --model alpha/alpha-image -o x.jpg`
// writes a real image while the request's events show the search, planner and
// image phases in order; four references, a mask, an unknown model and a
// simulated 429 answer their codes; after `svc alpha logout` the status probe
// says offline/login_required, and ready again after `svc alpha login` (the
// demo simulator approves the device code by itself).

const home = makeTempHome('svc-alpha-demo-');
let demo: RunningSvc;
let url: string;

beforeAll(async () => {
  demo = await startSvc(['serve', '--demo', '--port', '0', '--json'], { SVC_HOME: home });
  url = String(demo.first.url);
});
afterAll(async () => {
  await demo?.stop();
  rmSync(home, { recursive: true, force: true });
});

const svc = (...args: string[]) => runSvc([...args, '--server', url], { SVC_HOME: home });

/** Follows `GET /api/events` (connected when this resolves): the phases of one request, until its terminal event. */
async function listenForPhases(requestId: string, signal: AbortSignal): Promise<{ phases: Promise<string[]> }> {
  const response = await fetch(`${url}/api/events`, { signal });
  return { phases: collectPhases(response, requestId) };
}

async function collectPhases(response: Response, requestId: string): Promise<string[]> {
  const phases: string[] = [];
  for await (const message of readSse(response.body as ReadableStream<Uint8Array>)) {
    const event = JSON.parse(message.data) as { event?: string; requestId?: string; phase?: string };
    if (event.requestId !== requestId) continue;
    if (event.event === 'phase' && event.phase) phases.push(event.phase);
    if (event.event === 'done' || event.event === 'error') return phases;
  }
  return phases;
}

describe('alpha on `svc serve --demo`', () => {
  it('svc generate --model alpha/alpha-image -o x.jpg writes a real image; its events show search, planner and image in order', async () => {
    const out = join(home, 'x.jpg');
    const listening = new AbortController();
    const { phases } = await listenForPhases('alpha-bar', listening.signal);
    const run = await svc('generate', 'a lighthouse', '--model', 'alpha/alpha-image', '-o', out, '--request-id', 'alpha-bar', '--json');
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    const result = JSON.parse(run.stdout) as { provider: string; model: string; revisedPrompt: string; settings: Record<string, unknown> };
    expect(result).toMatchObject({ provider: 'alpha', model: 'alpha-image', settings: { plannerModel: 'alpha-4.3', costUsd: 0.02 } });
    expect(result.revisedPrompt).toMatch(/lighthouse/);
    expect(await sharp(out).metadata()).toMatchObject({ format: 'jpeg', width: 1024, height: 1024 });
    expect(await phases).toEqual(['queued', 'searching', 'planning', 'rendering', 'saving']);
    listening.abort();
  });

  it('four references: ALPHA_REF_TOO_MANY; a mask: ALPHA_MASK_UNSUPPORTED; an unknown model: INVALID_ALPHA_IMAGE_MODEL; a simulated 429: ALPHA_RATE_LIMITED', async () => {
    const png = join(home, 'ref.png');
    writeFileSync(
      png,
      await sharp({ create: { width: 32, height: 32, channels: 3, background: '#3366aa' } })
        .png()
        .toBuffer(),
    );
    const [refs, mask, model, limited] = await Promise.all([
      svc('generate', 'x', '--model', 'alpha/alpha-image', '--ref', png, '--ref', png, '--ref', png, '--ref', png),
      svc('edit', png, 'x', '--provider', 'alpha', '--mask', png),
      svc('generate', 'x', '--model', 'alpha/alpha-image-9'),
      svc('generate', 'x [sim:ratelimit]', '--model', 'alpha/alpha-image'),
    ]);
    expect({ code: refs.code, stderr: refs.stderr }).toMatchObject({ code: 5, stderr: expect.stringContaining('(ALPHA_REF_TOO_MANY)') });
    expect({ code: mask.code, stderr: mask.stderr }).toMatchObject({
      code: 5,
      stderr: expect.stringContaining('(ALPHA_MASK_UNSUPPORTED)'),
    });
    expect({ code: model.code, stderr: model.stderr }).toMatchObject({
      code: 5,
      stderr: expect.stringContaining('(INVALID_ALPHA_IMAGE_MODEL)'),
    });
    expect({ code: limited.code, stderr: limited.stderr }).toMatchObject({
      code: 6,
      stderr: expect.stringContaining('(ALPHA_RATE_LIMITED)'),
    });
  });

  it('alpha-api works on the demo key too', async () => {
    const run = await svc('generate', 'a harbor', '--provider', 'alpha-api', '--json');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ provider: 'alpha-api', model: 'alpha-image-2.0' });
  });

  it('after svc alpha logout the status is offline with login_required; after svc alpha login, ready again', async () => {
    const status = async () => (await (await fetch(`${url}/api/alpha/status`)).json()) as { status: string; reason?: string };
    expect(await status()).toMatchObject({ status: 'ready' });
    const logout = await svc('alpha', 'logout', '--json');
    expect(JSON.parse(logout.stdout)).toEqual({ removed: true, auth: 'none' });
    expect(await status()).toEqual({ status: 'offline', reason: 'login_required' });
    expect(await (await fetch(`${url}/api/health`)).json()).toMatchObject({ alpha: { auth: 'none' } });

    const login = await svc('alpha', 'login', '--json');
    expect({ code: login.code, stderr: login.stderr }).toMatchObject({ code: 0, stderr: expect.stringMatching(/code [A-Z]{4}-[A-Z]{4}/) });
    expect(JSON.parse(login.stdout)).toMatchObject({ auth: 'oauth', via: 'studio' });
    expect(await status()).toMatchObject({ status: 'ready' });
    expect(await (await fetch(`${url}/api/health`)).json()).toMatchObject({ alpha: { auth: 'oauth' } });
  });
});

describe('alpha in `svc sim serve`', () => {
  it('prints the environment a studio needs for both lanes (API, issuer, billing, key, session file), and a studio given it generates on both', async () => {
    const sims = await startSvc(['sim', 'serve', '--dir', join(home, 'sim-sessions')]);
    try {
      const env = sims.first.env as Record<string, string>;
      expect(Object.keys(env)).toEqual(
        expect.arrayContaining([
          'SVC_ALPHA_BASE_URL',
          'SVC_ALPHA_ISSUER_URL',
          'SVC_ALPHA_BILLING_URL',
          'ALPHA_API_KEY',
          'SVC_ALPHA_AUTH_FILE',
        ]),
      );
      expect(env.SVC_ALPHA_AUTH_FILE).toBe(join(home, 'sim-sessions', 'alpha-auth.json'));
      const studio = await startTestStudio({ env });
      try {
        for (const provider of ['alpha', 'alpha-api']) {
          const response = await studio.request('/api/generate', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ provider, prompt: 'a buoy' }),
          });
          expect({ provider, status: response.status }).toEqual({ provider, status: 200 });
        }
      } finally {
        await studio.stop();
      }
    } finally {
      await sims.stop();
    }
  });
});
