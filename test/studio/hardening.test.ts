import { readdirSync, rmSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { deflateSync, crc32 } from 'node:zlib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startResponsesSimulator, type ResponsesSimulator } from '../../src/sim/responses-simulator.js';
import { generationResult } from '../../src/studio/api/index.js';
import { startDemo } from '../../src/demo/demo.js';
import type { StudioPaths } from '../../src/studio/paths.js';
import { rawRequest, stallBody } from '../helpers/raw-http.js';
import { makeTempHome, startTestStudio } from '../helpers/studio.js';
import { startRig, type Rig } from '../generate/rig.js';

// What a security and reliability probe of the studio found, each case kept
// here so it stays fixed: Host and Origin parsing, the CSRF matrix, path
// traversal, reference bombs, stalled bodies, lane cooldowns, file modes.

let sim: ResponsesSimulator;
let rig: Rig;

beforeAll(async () => {
  sim = await startResponsesSimulator();
  rig = await startRig({ sim, oauth: {}, requestTimeoutMs: 1000 });
});

afterAll(async () => {
  await rig.stop();
  await sim.close();
});

const port = () => new URL(rig.studio.url).port;

describe('Host (DNS rebinding) and Origin (CSRF)', () => {
  it('accepts loopback names and refuses everything that only looks like one', async () => {
    for (const host of [
      `localhost:${port()}`,
      `LOCALHOST:${port()}`,
      `127.0.0.1:${port()}`,
      `[::1]:${port()}`,
      `studio.localhost:${port()}`,
      '127.1.2.3',
    ]) {
      expect((await rawRequest(rig.studio.url, { path: '/api/health', headers: { host } })).status, host).toBe(200);
    }
    for (const host of [
      '[::1].evil.example',
      '[::1]evil',
      'evil.example',
      'localhost.evil.example',
      '127.0.0.1.nip.io',
      'localhost@evil.example',
      'localhost:80/x',
      '[::2]',
    ]) {
      const response = await rawRequest(rig.studio.url, { path: '/api/health', headers: { host } });
      expect(response.status, host).toBe(403);
      expect(JSON.parse(response.body).error.code).toBe('FORBIDDEN_HOST');
    }
  });

  it('refuses duplicate Host headers with 400', async () => {
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port()), '127.0.0.1');
      let text = '';
      socket.on('data', (chunk) => (text += chunk));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
      socket.write(`GET /api/health HTTP/1.1\r\nHost: localhost:${port()}\r\nHost: evil.example\r\nConnection: close\r\n\r\n`);
    });
    expect(answer.split('\r\n')[0]).toMatch(/^HTTP\/1\.1 400/);
  });

  it('compares the whole origin on state-changing requests, scheme included', async () => {
    const put = (headers: Record<string, string>) =>
      rawRequest(rig.studio.url, {
        method: 'PUT',
        path: '/api/defaults',
        headers: { 'content-type': 'application/json', ...headers },
        body: '{}',
      });
    const ownOrigin = `http://127.0.0.1:${port()}`;
    expect((await put({ origin: ownOrigin })).status).toBe(200);
    expect((await put({})).status).toBe(200);
    expect((await put({ 'sec-fetch-site': 'same-origin' })).status).toBe(200);
    const refused: Record<string, string>[] = [
      { origin: `https://127.0.0.1:${port()}` },
      { origin: 'http://evil.example' },
      { origin: 'null' },
      { origin: `http://127.0.0.1:${Number(port()) + 1}` },
      { origin: 'not a url' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
    ];
    for (const headers of refused) {
      const response = await put(headers);
      expect(response.status, JSON.stringify(headers)).toBe(403);
      expect(JSON.parse(response.body).error.code).toBe('FORBIDDEN_ORIGIN');
    }
  });
});

describe('path traversal', () => {
  it('never serves anything but live assets', async () => {
    const paths = [
      '/generated/..%2f..%2fconfig.json',
      '/generated/%2e%2e%2fstudio.db',
      '/generated/.thumbs',
      '/generated/thumbs/..%2f..%2fconfig.json',
      '/generated/..',
      '/generated/%00.png',
      '/api/history/..%2Fconfig.json',
      '/api/history/%2e%2e%2f%2e%2e%2fetc%2fpasswd.png',
      '/generated/20250101-000000-x-0000000000.png%00.txt',
      '/generated/C:%5Cwindows%5Cwin.ini',
    ];
    for (const path of paths) {
      const response = await rawRequest(rig.studio.url, { path });
      expect([400, 404, 414], path).toContain(response.status);
      expect(response.body, path).not.toContain('"keys"');
    }
  });
});

/** A PNG chunk with its length and CRC. */
function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

function pngHeader(width: number, height: number): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8;
  header[9] = 2;
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header)]);
}

describe('reference bombs are refused before any upstream call', () => {
  const dataUrl = (bytes: Buffer) => `data:image/png;base64,${bytes.toString('base64')}`;

  it('a truncated PNG, a PNG with a junk IDAT, and 16000x16000 and 50000x50000 declarations', async () => {
    const good = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#3366cc' } })
      .png()
      .toBuffer();
    const truncated = good.subarray(0, good.length - 30);
    const junk = Buffer.concat([pngHeader(64, 64), chunk('IDAT', Buffer.alloc(4000, 0x78)), chunk('IEND', Buffer.alloc(0))]);
    const bomb = Buffer.concat([
      pngHeader(16000, 16000),
      chunk('IDAT', deflateSync(Buffer.alloc(200_000))),
      chunk('IEND', Buffer.alloc(0)),
    ]);
    const huge = Buffer.concat([
      pngHeader(50000, 50000),
      chunk('IDAT', deflateSync(Buffer.alloc(200_000))),
      chunk('IEND', Buffer.alloc(0)),
    ]);
    sim.simulator.clearRequests();
    for (const [name, bytes, status, code] of [
      ['truncated', truncated, 400, 'REFERENCE_INVALID'],
      ['junk IDAT', junk, 400, 'REFERENCE_INVALID'],
      ['16000x16000', bomb, 413, 'REFERENCE_TOO_MANY_PIXELS'],
      // Past sharp's own pixel limit its metadata read fails: the size comes from the header first (issue 33, item 8).
      ['50000x50000', huge, 413, 'REFERENCE_TOO_MANY_PIXELS'],
    ] as const) {
      const response = await rig.post('/api/generate', {
        prompt: 'x',
        provider: 'api',
        references: [dataUrl(good), dataUrl(bytes)],
        async: true,
        requestId: `bomb-${name.replace(/\W/g, '')}`,
      });
      expect(response.status, name).toBe(status);
      const body = await response.json();
      expect(body.error, name).toMatchObject({ code, details: { field: 'references', index: 1 } });
    }
    expect(sim.simulator.requests({ route: 'POST /v1/responses' })).toEqual([]);
  });
});

describe('connections', () => {
  it('closes a request whose body stalls, within the request timeout', async () => {
    // Headers and part of a body, then silence: without the bound the socket stays open and the test times out.
    const answer = await stallBody(rig.studio.url, '/api/generate');
    // Node answers 408 to a request that did not arrive in time, then closes.
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
  }, 15_000);
});

describe('lane cooldowns', () => {
  it('after oauth reports its quota exhausted, auto generates on api, and /api/providers says until when', async () => {
    const limited = await rig.post('/api/generate', { prompt: 'too much [sim:quota=600]', provider: 'oauth' });
    expect(limited.status).toBe(429);
    const providers = (await (await rig.get('/api/providers')).json()) as {
      providers: { id: string; state: string; reason: string; until?: string }[];
    };
    const oauth = providers.providers.find((provider) => provider.id === 'oauth');
    expect(oauth).toMatchObject({ state: 'cooling_down', reason: expect.stringContaining('RATE_LIMITED') });
    const until = Date.parse(String(oauth?.until));
    expect(until).toBeGreaterThan(Date.now() + 590_000);
    expect(until).toBeLessThan(Date.now() + 610_000);
    const routed = await rig.post('/api/generate', { prompt: 'a quiet harbour' });
    expect(routed.status).toBe(200);
    expect((await routed.json()).provider).toBe('api');
    // An explicit request still goes to the lane (its upstream decides), and success ends the cooldown.
    const explicit = await rig.post('/api/generate', { prompt: 'a calm sea', provider: 'oauth' });
    expect(explicit.status).toBe(200);
    const after = (await (await rig.get('/api/providers')).json()) as { providers: { id: string; state: string }[] };
    expect(after.providers.find((provider) => provider.id === 'oauth')?.state).toBe('ready');
  });
});

describe('upstream protocol errors', () => {
  it('a 200 that is not an event stream is UPSTREAM_PROTOCOL_ERROR, not a network failure', async () => {
    sim.simulator.fault('POST /v1/responses', { status: 200, body: { id: 'resp_1', object: 'response', status: 'completed' } });
    const response = await rig.post('/api/generate', { prompt: 'x', provider: 'api' });
    expect(response.status).toBe(502);
    expect((await response.json()).error.code).toBe('UPSTREAM_PROTOCOL_ERROR');
  });
});

describe('file modes', () => {
  // A state dir that does not exist yet (the studio makes it), under the usual umask 022, so
  // nothing here is private unless the studio makes it so.
  let parent: string;
  let umask: number;
  beforeAll(() => {
    parent = makeTempHome('svc-modes-');
    umask = process.umask(0o022);
  });
  afterAll(() => {
    process.umask(umask);
    rmSync(parent, { recursive: true, force: true });
  });

  const mode = (path: string) => statSync(path).mode & 0o777;

  /** Generates one image and waits for its thumbnail, then checks every mode the studio owes. */
  async function expectPrivate(url: string, paths: StudioPaths): Promise<void> {
    const response = await fetch(`${url}/api/generate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'a private image', provider: 'api' }),
    });
    expect(response.status).toBe(200);
    const [image] = generationResult.parse(await response.json()).images;
    // GET thumbnailUrl waits for the thumbnail, so its file is on disk after this.
    expect((await fetch(`${url}${image.thumbnailUrl}`)).status).toBe(200);
    expect(mode(paths.home)).toBe(0o700);
    expect(mode(paths.generatedDir)).toBe(0o700);
    expect(mode(paths.thumbnailsDir)).toBe(0o700);
    expect(mode(paths.databaseFile)).toBe(0o600);
    expect(mode(`${paths.databaseFile}-wal`)).toBe(0o600);
    const images = readdirSync(paths.generatedDir).filter((name) => !name.startsWith('.'));
    expect(images).toContain(image.filename);
    for (const name of images) expect(mode(join(paths.generatedDir, name)), name).toBe(0o600);
    const thumbnails = readdirSync(paths.thumbnailsDir);
    expect(thumbnails.length).toBeGreaterThan(0);
    for (const name of thumbnails) expect(mode(join(paths.thumbnailsDir, name)), name).toBe(0o600);
  }

  it('a studio creates its state directory 0700, and the database, images and thumbnails 0600', async () => {
    const home = join(parent, 'studio');
    const studio = await startRig({ sim, env: { SVC_HOME: home } });
    try {
      expect(studio.studio.ctx.paths.home).toBe(home);
      await expectPrivate(studio.studio.url, studio.studio.ctx.paths);
    } finally {
      await studio.stop();
    }
  });

  it('so does a demo studio, its simulated session files included', async () => {
    const home = join(parent, 'demo');
    // As `svc serve --demo` starts: the demo writes its sessions under SVC_HOME before the studio starts.
    const demo = await startDemo({ SVC_HOME: home });
    const studio = await startTestStudio({ env: { SVC_HOME: home }, demo: demo.options, onClose: () => demo.close() });
    try {
      expect(studio.ctx.paths.home).toBe(home);
      await expectPrivate(studio.url, studio.ctx.paths);
      const sessions = join(home, 'demo');
      expect(mode(sessions)).toBe(0o700);
      const files = readdirSync(sessions);
      expect(files.length).toBeGreaterThan(0);
      for (const name of files) expect(mode(join(sessions, name)), name).toBe(0o600);
    } finally {
      await studio.stop();
    }
  });
});
