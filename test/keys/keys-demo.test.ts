import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempHome } from '../helpers/studio.js';
import { startSvc, type RunningSvc } from '../helpers/svc.js';

// The bar on a demo studio, as a person runs it: `svc serve --demo --log` in
// its own process. A key the simulator rejects is refused and nothing saved;
// a good one is saved masked into the demo's own file (0600), never the
// user's config.json; an environment key cannot be removed; and no key shows
// in any answer, error or log line.

const REJECTED = 'bad-rejected-key-0001';
const GOOD = 'sim-my-demo-key-0001';
// A real-looking key exported in the user's shell: the demo runs with it (its simulators take any key).
const FROM_ENV = 'AIzaSyUserExportedBetaKey0000001';

describe('keys on a demo studio', () => {
  let home: string;
  let serve: RunningSvc;
  let url: string;
  let stdout = '';
  const answers: string[] = [];

  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${url}${path}`, {
      method,
      ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
    const text = await response.text();
    answers.push(text);
    return { status: response.status, body: JSON.parse(text) as { error?: { code: string }; [field: string]: unknown } };
  };

  beforeAll(async () => {
    home = makeTempHome('svc-keys-demo-');
    serve = await startSvc(['--json', 'serve', '--demo', '--port', '0', '--log'], { SVC_HOME: home, BETA_API_KEY: FROM_ENV });
    serve.child.stdout?.on('data', (chunk) => (stdout += chunk));
    url = serve.first.url as string;
  });

  afterAll(async () => {
    await serve?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  const demoConfig = () => join(home, 'demo', 'config.json');

  it('refuses a key the simulator rejects and saves nothing', async () => {
    const answer = await call('PUT', '/api/keys/omni', { apiKey: REJECTED });
    expect({ status: answer.status, code: answer.body.error?.code }).toEqual({ status: 401, code: 'AUTH_API_KEY_INVALID' });
    expect(existsSync(demoConfig()) ? readFileSync(demoConfig(), 'utf8') : '').not.toContain(REJECTED);
  });

  it('saves a good key masked, in a 0600 file of the demo, in force at once', async () => {
    const answer = await call('PUT', '/api/keys/omni', { apiKey: GOOD });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ provider: 'omni', set: true, source: 'config', valid: 'valid', masked: 'sim…001' });
    expect(statSync(demoConfig()).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(demoConfig(), 'utf8')).keys.omni).toBe(GOOD);
    // The user's own config.json is never written by the demo.
    expect(existsSync(join(home, 'config.json'))).toBe(false);
    const status = await call('GET', '/api/keys/status?verify=1');
    expect(status.body.omni).toMatchObject({ source: 'config', valid: 'valid' });
    expect(status.body.beta).toMatchObject({ source: 'env', valid: 'valid' });
    const generated = await call('POST', '/api/generate', { prompt: 'a harbour at night', provider: 'api', quality: 'low' });
    expect(generated.status).toBe(200);
  });

  it("runs a lane on a key from the user's environment", async () => {
    const answer = await call('POST', '/api/generate', { prompt: 'a demo on my own key', provider: 'beta-api' });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect((await call('GET', '/api/keys/status')).body.beta).toMatchObject({ source: 'env', set: true });
  });

  it('answers ENV_KEY_IMMUTABLE for a key from the environment', async () => {
    const answer = await call('DELETE', '/api/keys/beta');
    expect({ status: answer.status, code: answer.body.error?.code }).toEqual({ status: 409, code: 'ENV_KEY_IMMUTABLE' });
  });

  it('shows the alpha bar with its billing dollars', async () => {
    const quota = await call('GET', '/api/quota');
    expect(quota.status).toBe(200);
    const alpha = quota.body.alpha as {
      authenticated: boolean;
      billing?: { usedUsd: unknown; limitUsd: unknown };
      windows: { label: string }[];
    };
    expect(alpha.authenticated).toBe(true);
    expect(alpha.billing).toEqual({ usedUsd: expect.any(Number), limitUsd: expect.any(Number) });
    expect(alpha.windows[0].label).toBe('monthly');
    expect(quota.body.oauth).toMatchObject({ authenticated: true, windows: [{ label: '5h' }, { label: '7d' }] });
  });

  it('switches the chat account: pending, then complete once the demo issuer approves the code', async () => {
    const started = await call('POST', '/api/auth/switch', { provider: 'oauth' });
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({
      provider: 'oauth',
      variant: 'chat-device-auth',
      userCode: expect.any(String),
      verificationUrl: expect.stringContaining('/codex/device'),
    });
    const path = `/api/auth/switch/${String(started.body.sessionId)}`;
    expect((await call('GET', path)).body.status).toBe('pending');
    const seen: unknown[] = [];
    for (let tries = 0; tries < 100 && seen.at(-1) !== 'complete'; tries += 1) {
      seen.push((await call('GET', path)).body.status);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(seen.at(-1)).toBe('complete');
    expect(new Set(seen)).toEqual(new Set(['pending', 'complete']));
  });

  it('never shows a full key in an answer, an error or a log line', async () => {
    await serve.stop();
    const everything = [...answers, stdout, serve.stderr()].join('\n');
    // Request lines (with --log) go to stderr, like warnings and errors.
    expect(serve.stderr()).toContain('/api/keys/omni');
    for (const key of [REJECTED, GOOD, FROM_ENV]) expect(everything).not.toContain(key);
  });
});
