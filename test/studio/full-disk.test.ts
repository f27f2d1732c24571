import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, statfsSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemo, type Demo } from '../../src/demo/demo.js';
import { startStudio, type RunningStudio } from '../../src/studio/main.js';
import { startTestChat } from '../chat/helpers.js';

// Issue 33, item 7: on a full disk every write answered 500 INTERNAL_ERROR and
// the studio refused to start, though the database and every image were
// intact. Now: 507 STORAGE_FULL naming the free space and the space wanted, a
// job refused before anything is stored or billed, a start on the full disk
// (history readable, space freed by a permanent delete), the chat server too.
// The disk is a real one: a small tmpfs mounted for the test (the suite runs
// as root in CI; elsewhere the mount fails and so does this test, loudly).

const root = mkdtempSync(join(tmpdir(), 'svc-full-disk-'));
const disk = join(root, 'disk');
const filler = join(disk, 'filler');

const free = () => {
  const stats = statfsSync(disk);
  return stats.bavail * stats.bsize;
};

/** Writes a file until the disk says no more: ENOSPC. */
function fillDisk(): void {
  const fd = openSync(filler, 'a');
  const block = Buffer.alloc(64 * 1024, 1);
  try {
    for (;;) writeSync(fd, block);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  }
  try {
    for (;;) writeSync(fd, block, 0, 512);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(fd);
  }
}

beforeAll(() => {
  mkdirSync(disk);
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=24m', 'tmpfs', disk], { stdio: 'pipe' });
  } catch (error) {
    throw new Error(`This test mounts a small tmpfs as its full disk and needs root for it: ${(error as Error).message}`);
  }
});

afterAll(() => {
  try {
    execFileSync('umount', ['-l', disk], { stdio: 'pipe' });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

interface ErrorBody {
  error: { code: string; message: string; details?: Record<string, unknown> };
}

describe('the studio on a full disk', () => {
  const home = join(disk, 'studio');
  let demo: Demo;
  let studio: RunningStudio | undefined;
  const start = (reserve: number) =>
    startStudio({
      env: { SVC_HOME: home, PATH: process.env.PATH, SVC_STORAGE_RESERVE_BYTES: String(reserve) },
      port: 0,
      descriptor: true,
      demo: demo.options,
    });
  const post = (path: string, body: unknown, method = 'POST') =>
    fetch(`${studio!.url}${path}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  beforeAll(async () => {
    demo = await startDemo({ SVC_HOME: home });
  });
  afterAll(async () => {
    await studio?.close();
    await demo?.close();
  });

  it('answers 507 STORAGE_FULL, starts again read-only, and a permanent delete frees space for new work', async () => {
    studio = await start(1);
    const made = await post('/api/generate', { prompt: 'a lighthouse', provider: 'api' });
    expect(made.status).toBe(200);
    // A photo-sized file (about 1 MB of noise), the kind a person deletes to make room.
    const photo = await sharp({
      create: { width: 640, height: 640, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 60 } },
    })
      .png()
      .toBuffer();
    const imported = await post('/api/assets', { data: `data:image/png;base64,${photo.toString('base64')}`, name: 'holiday.png' });
    expect(imported.status).toBe(201);
    const image = (await imported.json()) as { filename: string; bytes: number };

    fillDisk();
    expect(free()).toBe(0);
    const calls = () => demo.suite.simulators.responses.simulator.requests({ route: 'POST /v1/responses' }).length;
    const before = calls();
    // A job: refused before anything is stored or billed.
    const refused = await post('/api/generate', { prompt: 'another', provider: 'api' });
    expect(refused.status).toBe(507);
    const body = (await refused.json()) as ErrorBody;
    expect(body.error).toMatchObject({ code: 'STORAGE_FULL', details: { path: home, freeBytes: 0, neededBytes: 1 } });
    expect(body.error.message).toMatch(/full .*free at least/);
    expect(calls()).toBe(before);
    // Any other write: the filesystem's ENOSPC, answered by name (it was a 500).
    const key = await post('/api/keys/omni', { apiKey: `sk-${'a'.repeat(40)}` }, 'PUT');
    expect(key.status).toBe(507);
    expect(((await key.json()) as ErrorBody).error.code).toBe('STORAGE_FULL');
    const importFull = await post('/api/assets', { data: `data:image/png;base64,${photo.toString('base64')}`, name: 'another.png' });
    expect(importFull.status).toBe(507);
    expect(((await importFull.json()) as ErrorBody).error).toMatchObject({
      code: 'STORAGE_FULL',
      details: { path: home, freeBytes: expect.any(Number), neededBytes: 1 },
    });

    // A stop and a start on the full disk: it starts, and reads work.
    await studio.close();
    studio = await start(Math.ceil(image.bytes / 2));
    const history = (await (await fetch(`${studio.url}/api/history`)).json()) as { items: Array<{ filename: string }> };
    expect(history.items.map((item) => item.filename)).toContain(image.filename);
    const served = await fetch(`${studio.url}/generated/${image.filename}`);
    expect(served.status).toBe(200);
    expect((await served.arrayBuffer()).byteLength).toBe(image.bytes);
    expect((await post('/api/generate', { prompt: 'still full', provider: 'api' })).status).toBe(507);

    // Freed from the UI's way: a permanent delete (files first, then the row), then new work runs.
    const purged = await fetch(`${studio.url}/api/history/${image.filename}?permanent=true`, { method: 'DELETE' });
    expect(purged.status).toBe(200);
    expect(await purged.json()).toEqual({ filename: image.filename, purged: true, freedBytes: image.bytes });
    expect(free()).toBeGreaterThanOrEqual(image.bytes / 2);
    expect((await fetch(`${studio.url}/api/history/${image.filename}`)).status).toBe(404);
    expect((await post('/api/generate', { prompt: 'room again', provider: 'api' })).status).toBe(200);
  });
});

describe('the chat server on a full disk', () => {
  it('starts, reads its sessions, and answers 507 STORAGE_FULL to a write', async () => {
    const home = join(disk, 'chat');
    const first = await startTestChat({ home, keepHome: true });
    expect((await first.postJson('/api/sessions', { title: 'before' })).status).toBeLessThan(300);
    await first.stop();
    fillDisk();
    const chat = await startTestChat({ home, keepHome: true });
    try {
      const sessions = (await chat.getJson<{ sessions: Array<{ title: string }> }>('/api/sessions')).body;
      expect(sessions.sessions.map((session) => session.title)).toContain('before');
      const write = await chat.postJson('/api/sessions', { title: 'after' });
      expect(write.status).toBe(507);
      expect((write.body as unknown as ErrorBody).error.code).toBe('STORAGE_FULL');
    } finally {
      await chat.stop();
      rmSync(filler, { force: true });
    }
  });
});
