import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOauthSession, startResponsesSimulator, type ResponsesSimulator } from '../../src/sim/responses-simulator.js';
import { startSimulatorSuite, type SimulatorSuite } from '../../src/sim/suite.js';
import { makeTempHome, startTestStudio, type TestStudio } from '../helpers/studio.js';
import { SVC } from '../helpers/svc.js';

// The CLI over a real studio, as a child process: svc keys status|set|rm,
// svc quota, svc auth switch, svc oauth status, svc storage status|open.

/** Runs svc with `input` on stdin (a pipe, never a terminal). */
function svc(args: string[], input = '', env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', SVC, '--server', studio.url, ...args], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', SVC_HOME: studio.home, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 25_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
    child.stdin.end(input);
  });
}

let suite: SimulatorSuite;
let chat: ResponsesSimulator;
let studio: TestStudio;

beforeAll(async () => {
  [suite, chat] = await Promise.all([
    startSimulatorSuite(),
    startResponsesSimulator({ deviceLogin: { intervalSeconds: 0.1, autoApproveAfterMs: 300 } }),
  ]);
  const home = makeTempHome('svc-keys-cli-');
  mkdirSync(join(home, 'chat'));
  const chatFile = join(home, 'chat', 'auth.json');
  writeFileSync(chatFile, JSON.stringify(createOauthSession(chat)), { mode: 0o600 });
  studio = await startTestStudio({
    env: {
      SVC_HOME: home,
      SVC_OAUTH_AUTH_FILE: chatFile,
      SVC_ALPHA_AUTH_FILE: join(home, 'no-alpha.json'),
      PATH: join(home, 'empty-path'),
    },
    upstreams: { ...suite.upstreams, oauth: chat.backendBaseUrl, 'oauth.issuer': chat.issuerUrl },
  });
});
afterAll(async () => {
  await studio?.stop();
  await Promise.all([suite.close(), chat.close()]);
});

describe('svc keys', () => {
  it('sets a key read from stdin (never echoed), shows it masked in status, and removes it', async () => {
    const set = await svc(['keys', 'set', 'omni', '--stdin'], `${suite.keys.omni}\n`);
    expect({ code: set.code, stderr: set.stderr }).toMatchObject({ code: 0 });
    expect(set.stdout).toContain('omni saved (si…ey)');
    expect(set.stdout + set.stderr).not.toContain(suite.keys.omni);

    const status = await svc(['keys', 'status', '--verify']);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/omni\s+yes\s+config\s+si…ey\s+valid/);
    expect(status.stdout).toMatch(/alpha\s+no\s+none/);
    expect(status.stdout).toContain('Other lanes');
    const json = JSON.parse((await svc(['--json', 'keys', 'status'])).stdout) as Record<string, { source: string }>;
    expect(json.omni.source).toBe('config');

    const removed = await svc(['keys', 'rm', 'omni']);
    expect(removed).toMatchObject({ code: 0 });
    expect(removed.stdout).toContain('omni removed');
  });

  it('prompts on a terminal without echoing what is typed', async () => {
    // `script` gives svc a real terminal; the key is typed once the prompt shows.
    const command = [process.execPath, '--import', 'tsx', SVC, '--server', studio.url, 'keys', 'set', 'omni']
      .map((part) => `'${part}'`)
      .join(' ');
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', SVC_HOME: studio.home },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let screen = '';
    child.stdout.on('data', (chunk) => {
      screen += chunk;
      if (screen.includes('(not shown): ') && !child.stdin.writableEnded) child.stdin.end(`${suite.keys.omni}\r`);
    });
    const code = await new Promise<number>((resolve) => child.on('close', (exit) => resolve(exit ?? -1)));
    expect(screen).toContain('omni saved (si…ey)');
    expect(screen).not.toContain(suite.keys.omni);
    expect(code).toBe(0);
    await svc(['keys', 'rm', 'omni']);
  });

  it('refuses a key the vendor rejects with the auth exit code, and a key given as an argument or without a terminal', async () => {
    const rejected = await svc(['keys', 'set', 'omni', '--stdin'], 'sk-not-a-key-the-vendor-takes');
    expect(rejected.code).toBe(4);
    expect(rejected.stderr).toContain('AUTH_API_KEY_INVALID');
    expect(rejected.stderr).not.toContain('sk-not-a-key-the-vendor-takes');

    const visible = await svc(['keys', 'set', 'omni', 'sk-visible-on-the-command-line']);
    expect(visible.code).toBe(2);
    expect(visible.stderr).toContain('never an argument');

    const noTerminal = await svc(['keys', 'set', 'beta']);
    expect(noTerminal.code).toBe(2);
    expect(noTerminal.stderr).toContain('--stdin');

    expect((await svc(['keys', 'set', 'gamma', '--stdin'], 'x')).code).toBe(2);
  });

  it('sets the service account from its key file and removes it', async () => {
    const file = join(studio.home, 'service-account.json');
    writeFileSync(file, suite.simulators.beta.serviceAccountJson(), { mode: 0o600 });
    const set = await svc(['keys', 'set', 'cloud', file]);
    expect(set.code).toBe(0);
    expect(set.stdout).toContain(
      `cloud saved (${suite.simulators.beta.serviceAccount.client_email}, project ${suite.simulators.beta.serviceAccount.project_id})`,
    );
    expect((await svc(['keys', 'set', 'cloud'])).code).toBe(2);
    expect((await svc(['keys', 'rm', 'cloud'])).stdout).toContain('cloud removed');
  });
});

describe('svc quota, svc oauth status', () => {
  it('draws the bars of each account', async () => {
    await fetch(`${chat.url}/__sim/usage`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ primaryUsedPercent: 50, secondaryUsedPercent: 10 }),
    });
    const quota = await svc(['quota']);
    expect(quota.code).toBe(0);
    expect(quota.stdout).toMatch(/5h\s+█{10}░{10}\s+50%\s+resets in/);
    expect(quota.stdout).toMatch(/alpha\s+not signed in/);
    const json = JSON.parse((await svc(['--json', 'quota'])).stdout) as { oauth: { windows: unknown[] } };
    expect(json.oauth.windows).toHaveLength(2);
  });

  it('shows the chat session without tokens', async () => {
    const status = await svc(['oauth', 'status']);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(`chat session as ${chat.account.email} (plus)`);
    expect(status.stdout).toContain(chat.account.accountId);
  });
});

describe('svc auth switch', () => {
  it('prints the page and the code, waits, and says which account signed in', async () => {
    const switched = await svc(['--json', 'auth', 'switch', 'oauth']);
    expect({ code: switched.code, stderr: switched.stderr }).toMatchObject({ code: 0 });
    expect(switched.stderr).toMatch(new RegExp(`open ${chat.issuerUrl}/codex/device\\nand enter the code [A-Z]{4}-[A-Z]{4}`));
    expect(JSON.parse(switched.stdout)).toMatchObject({ provider: 'oauth', status: 'complete', email: chat.account.email });
    expect((await svc(['auth', 'switch', 'nobody'])).code).toBe(2);
  });

  it('says why a sign-in failed when the person declines it', async () => {
    // A second chat issuer that waits for a person (no auto-approval), and a studio signing in to it.
    const slow = await startResponsesSimulator({ deviceLogin: { intervalSeconds: 0.1 } });
    const home = makeTempHome('svc-keys-cli-deny-');
    const other = await startTestStudio({
      env: { SVC_HOME: home, SVC_OAUTH_AUTH_FILE: join(home, 'auth.json'), PATH: join(home, 'empty-path') },
      upstreams: { oauth: slow.backendBaseUrl, 'oauth.issuer': slow.issuerUrl },
    });
    try {
      const child = spawn(process.execPath, ['--import', 'tsx', SVC, '--server', other.url, 'auth', 'switch', 'oauth'], {
        env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      const userCode = await new Promise<string>((resolve) =>
        child.stderr.on('data', (chunk) => {
          stderr += chunk;
          const code = /enter the code ([A-Z]{4}-[A-Z]{4})/.exec(stderr)?.[1];
          if (code) resolve(code);
        }),
      );
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(slow.devices.deny(userCode)).toBe(true);
      expect(await exited).not.toBe(0);
      expect(stderr).toMatch(/The sign-in failed: .*declined/i);
      expect(stderr).not.toContain('[object Object]');
    } finally {
      await other.stop();
      await slow.close();
    }
  });
});

describe('svc storage', () => {
  it('shows where the studio keeps its files, and names the folder when it cannot open it', async () => {
    const status = await svc(['storage', 'status']);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(studio.ctx.paths.generatedDir);
    expect(status.stdout).toMatch(/disk free\s+\S+/);
    // The studio's PATH has no xdg-open: OPENER_UNAVAILABLE (exit 1), the path in the message.
    const open = await svc(['storage', 'open']);
    expect(open.code).toBe(1);
    expect(open.stderr).toContain('OPENER_UNAVAILABLE');
    expect(open.stderr).toContain(studio.ctx.paths.generatedDir);
  });
});
