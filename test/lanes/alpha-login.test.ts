import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAlphaSimulator, type AlphaSimulator } from '../../src/sim/alpha/index.js';
import { startAlphaLogin } from '../../src/studio/lanes/alpha/login.js';
import { makeTempHome } from '../helpers/studio.js';
import { runSvc } from '../helpers/svc.js';
import { startAlphaRig, type AlphaRig } from './alpha-rig.js';
import { waitFor } from './gamma-delta-epsilon-rig.js';

// Signing in to alpha with a device code (contract quota-and-status-probes §3):
// the flow itself against the simulator's issuer (approved, declined), and the
// `svc alpha` commands as a program, with no studio running (in-process) and
// through a studio (its session routes).

let sim: AlphaSimulator;

beforeAll(async () => {
  sim = await startAlphaSimulator({ login: { intervalSeconds: 0.05 } });
});
afterAll(async () => {
  await sim?.close();
});

/** A port nothing listens on: the CLI finds no studio there. */
const NO_STUDIO = 'http://127.0.0.1:9';

describe('the device flow', () => {
  it('approved: the session file is written (0600) with the tokens, the issuer token endpoint and the account', async () => {
    const file = join(makeTempHome('svc-alpha-login-'), 'alpha', 'auth.json');
    const login = await startAlphaLogin({ issuerUrl: sim.issuerUrl, file });
    expect(login.authorization.userCode).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(login.authorization.verificationUrl).toContain('/device?user_code=');
    expect(existsSync(file)).toBe(false);
    expect(sim.devices.approve(login.authorization.userCode)).toBe(true);
    const session = await login.completion;
    expect(session).toMatchObject({
      email: sim.account.email,
      accountId: sim.account.userId,
      tokenEndpoint: `${sim.issuerUrl}/oauth2/token`,
    });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(file, '..')).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({
      accessToken: session.accessToken,
      refreshToken: expect.any(String),
      expiresAt: expect.any(Number),
    });
  });

  it('declined: nothing is written', async () => {
    const file = join(makeTempHome('svc-alpha-login-'), 'alpha', 'auth.json');
    const login = await startAlphaLogin({ issuerUrl: sim.issuerUrl, file });
    sim.devices.deny(login.authorization.userCode);
    await expect(login.completion).rejects.toMatchObject({ outcome: 'denied' });
    expect(existsSync(file)).toBe(false);
  });
});

describe('svc alpha, with no studio running', () => {
  it('login prints the code and the page, waits, and writes the session; logout removes the file', async () => {
    const home = makeTempHome('svc-alpha-cli-');
    const env = { SVC_HOME: home, SVC_ALPHA_ISSUER_URL: sim.issuerUrl };
    const approver = (async () => {
      const code = await waitFor(
        'a device code',
        () => sim.devices.codes().find((entry) => entry.state === 'pending' && !entry.polls)?.userCode,
      );
      sim.devices.approve(code);
    })();
    const login = await runSvc(['alpha', 'login', '--server', NO_STUDIO, '--json'], env);
    await approver;
    expect({ code: login.code, stderr: login.stderr }).toMatchObject({
      code: 0,
      stderr: expect.stringMatching(/open http:\/\/127\.0\.0\.1:\d+\/device\?user_code=.*\n.*code [A-Z]{4}-[A-Z]{4}/),
    });
    expect(JSON.parse(login.stdout)).toMatchObject({ auth: 'oauth', email: sim.account.email, via: 'here' });
    const file = join(home, 'alpha', 'auth.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const logout = await runSvc(['alpha', 'logout', '--server', NO_STUDIO, '--json'], env);
    expect(JSON.parse(logout.stdout)).toEqual({ removed: true, auth: 'none' });
    expect(existsSync(file)).toBe(false);
  });
});

describe('svc alpha, through a studio', () => {
  let rig: AlphaRig;
  beforeAll(async () => {
    rig = await startAlphaRig(sim);
  });
  afterAll(async () => {
    await rig?.stop();
  });

  it('status shows the session (never a token) and, with --probe, the probe; logout signs out through the studio', async () => {
    const status = await runSvc(['alpha', 'status', '--probe', '--json', '--server', rig.studio.url]);
    expect(status.code).toBe(0);
    const body = JSON.parse(status.stdout) as Record<string, unknown>;
    expect(body).toMatchObject({
      auth: 'oauth',
      email: sim.account.email,
      refreshable: true,
      probe: 'ready',
      imageModels: ['alpha-image', 'alpha-image-quality', 'alpha-image-2.0', 'alpha-image-pro'],
    });
    expect(status.stdout).not.toContain(JSON.parse(readFileSync(rig.sessionFile, 'utf8')).accessToken as string);

    const logout = await runSvc(['alpha', 'logout', '--server', rig.studio.url]);
    expect({ code: logout.code, stdout: logout.stdout }).toEqual({ code: 0, stdout: '✓ signed out of alpha\n' });
    expect(existsSync(rig.sessionFile)).toBe(false);
    const after = await runSvc(['alpha', 'status', '--probe', '--server', rig.studio.url]);
    expect(after.stdout).toContain('alpha: not signed in');
    expect(after.stdout).toContain('probe: offline (login_required)');
  });
});
