import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoverServer } from '../../src/cli/client.js';
import { EXIT_CODES } from '../../src/common/errors.js';
import { makeTempHome, startTestStudio, type TestStudio } from '../helpers/studio.js';
import { SVC, runSvc } from '../helpers/svc.js';

describe('svc against a running studio', () => {
  let studio: TestStudio;
  beforeAll(async () => {
    studio = await startTestStudio();
  });
  afterAll(async () => {
    await studio.stop();
  });

  it('svc status --json prints one JSON document with health and providers', async () => {
    const result = await runSvc(['status', '--json', '--server', studio.url]);
    expect(result.code, result.stderr).toBe(0);
    const body = JSON.parse(result.stdout);
    expect(body.server).toEqual({ url: studio.url, source: 'flag' });
    expect(body.health.version).toBe(studio.ctx.version);
    expect(body.providers).toHaveLength(12);
  });

  it('svc models --json lists <lane>/<model> targets with live lane status', async () => {
    const result = await runSvc(['models', '--json'], { SVC_SERVER: studio.url });
    expect(result.code, result.stderr).toBe(0);
    const { models } = JSON.parse(result.stdout);
    const targets = models.map((entry: { target: string }) => entry.target);
    expect(targets).toContain('api/lang-5.6-luna');
    expect(targets).toContain('oauth/lang-6-luna');
    expect(targets).toContain('beta-api/nano-fruit-pro');
    expect(targets).toContain('alpha/alpha-video-1.5');
    const apiDefault = models.find((entry: { target: string }) => entry.target === 'api/lang-5.6-luna');
    expect(apiDefault).toMatchObject({ default: true, kind: 'chat' });
    expect(typeof apiDefault.state).toBe('string');
  });

  it('svc models prints a tidy table without color when NO_COLOR is set', async () => {
    const result = await runSvc(['models', 'beta-api', '--server', studio.url]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^TARGET\s+KIND\s+LANE STATUS\s+NOTES/);
    expect(result.stdout).toContain('beta-api/nano-fruit-2');
    expect(result.stdout).not.toContain('\u001b[');
  });

  it('svc defaults set model writes both lanes and get shows the sources', async () => {
    const set = await runSvc(['defaults', 'set', 'model', 'lang-5.6-sol', '--json', '--server', studio.url]);
    expect(set.code, set.stderr).toBe(0);
    const body = JSON.parse(set.stdout);
    expect(body.oauth.model.value).toBe('lang-5.6-sol');
    expect(body.api.model.value).toBe('lang-5.6-sol');
    // An oauth-only model is the oauth default; api gets its nearest equivalent, and the CLI says so.
    const oauthOnly = await runSvc(['defaults', 'set', 'model', 'lang-6-luna', '--server', studio.url]);
    expect(oauthOnly.code, oauthOnly.stderr).toBe(0);
    expect(oauthOnly.stdout).toContain('api has no lang-6-luna: its default is the nearest equivalent, lang-5.6-luna');
    const foreign = await runSvc(['defaults', 'set', 'model', 'nano-fruit-2', '--server', studio.url]);
    expect(foreign.code).toBe(EXIT_CODES.bad_request);
    expect(foreign.stderr).toContain('INVALID_IMAGE_MODEL');
    const bad = await runSvc(['defaults', 'set', 'reasoning', 'extreme', '--server', studio.url]);
    expect(bad.code).toBe(EXIT_CODES.bad_request);
    expect(bad.stderr).toContain('none, low, medium, high, xhigh');
  });

  it('finds the server through the descriptor file', async () => {
    const home = makeTempHome();
    writeFileSync(join(home, 'server.json'), JSON.stringify({ backend: { url: studio.url }, port: studio.port, pid: 1 }));
    const result = await runSvc(['status', '--json'], { SVC_HOME: home });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).server).toEqual({ url: studio.url, source: 'descriptor' });
  });
});

describe('svc exit codes', () => {
  it('exits with the unreachable code when no server answers', async () => {
    const result = await runSvc(['status', '--server', 'http://127.0.0.1:9']);
    expect(result.code).toBe(EXIT_CODES.unreachable);
    expect(result.stderr).toContain('Cannot reach the studio');
  });

  it('exits with the usage code on an unknown command or setting', async () => {
    expect((await runSvc(['frobnicate'])).code).toBe(EXIT_CODES.usage);
    expect((await runSvc(['defaults', 'set', 'colour', 'red', '--server', 'http://127.0.0.1:9'])).code).toBe(EXIT_CODES.usage);
  });
});

describe('server discovery order', () => {
  it('prefers --server, then SVC_SERVER, then the descriptor, then the default', () => {
    const home = makeTempHome();
    writeFileSync(join(home, 'server.json'), JSON.stringify({ backend: { url: 'http://127.0.0.1:4000' } }));
    expect(discoverServer('http://a:1/', { SVC_SERVER: 'http://b:2', SVC_HOME: home })).toEqual({ url: 'http://a:1', source: 'flag' });
    expect(discoverServer(undefined, { SVC_SERVER: 'http://b:2', SVC_HOME: home })).toEqual({ url: 'http://b:2', source: 'env' });
    expect(discoverServer(undefined, { SVC_HOME: home })).toEqual({ url: 'http://127.0.0.1:4000', source: 'descriptor' });
    expect(discoverServer(undefined, { SVC_HOME: makeTempHome() })).toEqual({ url: 'http://127.0.0.1:3333', source: 'default' });
  });
});

describe('svc serve as a process', () => {
  it('serves, advertises its port in the descriptor, and cleans up on SIGTERM', async () => {
    const home = makeTempHome();
    const child = spawn(process.execPath, ['--import', 'tsx', SVC, 'serve', '--port', '0', '--json'], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, SVC_HOME: home },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    try {
      const firstLine = await new Promise<string>((resolve, reject) => {
        let buffer = '';
        child.stdout.on('data', (chunk) => {
          buffer += chunk;
          if (buffer.includes('\n')) resolve(buffer.split('\n')[0]);
        });
        child.on('close', () => reject(new Error('serve exited before printing its address')));
      });
      const info = JSON.parse(firstLine);
      expect(info.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect((await fetch(`${info.url}/api/health`)).status).toBe(200);
      const descriptor = JSON.parse(readFileSync(join(home, 'server.json'), 'utf8'));
      expect(descriptor.backend.url).toBe(info.url);
      expect(descriptor.pid).toBe(child.pid);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(existsSync(join(home, 'server.json'))).toBe(false);
  });
});

describe('svc with a token-protected studio', () => {
  it('sends SVC_TOKEN, and exits with the auth code when it is missing', async () => {
    const studio = await startTestStudio({ token: 'cli-token-1' });
    try {
      const without = await runSvc(['status', '--server', studio.url]);
      expect(without.code).toBe(EXIT_CODES.auth);
      expect(without.stderr).toContain('TOKEN_REQUIRED');
      const events = await runSvc(['events', '--server', studio.url]);
      expect(events.code).toBe(EXIT_CODES.auth);
      expect(events.stderr).toContain('HTTP 401');
      const withToken = await runSvc(['status', '--json', '--server', studio.url], { SVC_TOKEN: 'cli-token-1' });
      expect(withToken.code, withToken.stderr).toBe(0);
    } finally {
      await studio.stop();
    }
  });
});
