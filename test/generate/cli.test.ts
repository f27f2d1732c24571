import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EXIT_CODES } from '../../src/common/errors.js';
import { readEmbeddedMetadata } from '../../src/studio/media/metadata.js';
import { startDemo, type Demo } from '../../src/demo/demo.js';
import { makeTempHome, startTestStudio, type TestStudio } from '../helpers/studio.js';
import { SVC, runSvc } from '../helpers/svc.js';

// The studio's main job from the command line, against the same wiring as
// `svc serve --demo`: every lane points at in-process simulators.

describe('svc generation commands against a demo studio', () => {
  let studio: TestStudio;
  let demo: Demo;
  let work: string;

  beforeAll(async () => {
    const home = makeTempHome();
    demo = await startDemo({ SVC_HOME: home });
    studio = await startTestStudio({ env: { SVC_HOME: home }, demo: demo.options, onClose: () => demo.close() });
    work = makeTempHome('svc-cli-out-');
  });
  afterAll(async () => {
    await studio.stop();
  });

  const svc = (args: string[], timeoutMs?: number) => runSvc([...args, '--server', studio.url], {}, timeoutMs);

  it('svc generate "a red fox" -o fox.png writes a real PNG that carries its prompt', async () => {
    const out = join(work, 'fox.png');
    const result = await svc(['generate', 'a red fox', '-o', out, '--json'], 60_000);
    expect(result.code, result.stderr).toBe(0);
    const body = JSON.parse(result.stdout);
    expect(body.saved).toEqual([out]);
    expect(body.images[0]).toMatchObject({ provider: expect.any(String), prompt: 'a red fox', format: 'png' });
    const bytes = readFileSync(out);
    const meta = await sharp(bytes).metadata();
    expect(meta).toMatchObject({ format: 'png', width: 1024, height: 1024 });
    expect((await readEmbeddedMetadata(bytes))?.prompt).toBe('a red fox');
    // The simulated fox is drawn mostly red.
    const { channels } = await sharp(bytes).stats();
    expect(channels[0].mean).toBeGreaterThan(channels[1].mean);
    expect(channels[0].mean).toBeGreaterThan(channels[2].mean);
  });

  it('gen is an alias, and --model lane/model picks the lane', async () => {
    const result = await svc(['gen', 'a blue kite', '--model', 'api/lang-5.6-sol', '-s', '1536x1024', '-q', 'low', '--json'], 60_000);
    expect(result.code, result.stderr).toBe(0);
    const body = JSON.parse(result.stdout);
    expect(body.provider).toBe('api');
    expect(body.model).toBe('lang-5.6-sol');
    expect(body.images[0]).toMatchObject({ width: 1536, height: 1024 });
  });

  it('-n 2 runs a multimode batch and writes numbered files', async () => {
    const out = join(work, 'pair.png');
    const result = await svc(['generate', 'two green hills', '-n', '2', '-o', out, '--json'], 60_000);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).saved).toEqual([join(work, 'pair-1.png'), join(work, 'pair-2.png')]);
    expect(existsSync(join(work, 'pair-2.png'))).toBe(true);
  });

  it('svc multimode with a failing slot prints every slot and exits 6 (issue 46)', async () => {
    const result = await svc(
      ['multimode', 'a pear [sim:safety]', '--target', 'gamma/gamma-image-2', '--target', 'api/lang-5.6-luna', '--json'],
      60_000,
    );
    expect(result.code, result.stdout + result.stderr).toBe(EXIT_CODES.upstream);
    const body = JSON.parse(result.stdout) as { succeeded: number; failed: number; results: { ok: boolean; provider: string }[] };
    expect(body).toMatchObject({ succeeded: 1, failed: 1 });
    expect(body.results.find((slot) => !slot.ok)?.provider).toBe('api');
  });

  it('-o x.png on a lane that makes JPEG writes PNG bytes, says so, and keeps the metadata (issue 46)', async () => {
    const out = join(work, 'delta-fox.png');
    const result = await svc(['generate', 'a delta fox', '-p', 'delta', '-o', out], 60_000);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/made a JPEG; converted to PNG/);
    const bytes = readFileSync(out);
    expect((await sharp(bytes).metadata()).format).toBe('png');
    expect((await readEmbeddedMetadata(bytes))?.prompt).toBe('a delta fox');
    const json = JSON.parse(
      (await svc(['generate', 'a delta owl', '-p', 'delta', '-o', join(work, 'delta-owl.webp'), '--json'], 60_000)).stdout,
    ) as { images: { format: string; filename: string }[]; converted: unknown[] };
    expect(json.images[0].format).toBe('jpeg');
    expect(json.converted).toEqual([{ path: join(work, 'delta-owl.webp'), from: 'jpeg', to: 'webp', filename: json.images[0].filename }]);
    expect((await sharp(readFileSync(join(work, 'delta-owl.webp'))).metadata()).format).toBe('webp');
  });

  it('svc edit with --ref and a mask file', async () => {
    const source = join(work, 'fox.png');
    const result = await svc(['edit', source, 'make it night', '--mask', source, '--ref', source, '--json'], 60_000);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).images).toHaveLength(1);
  });

  it('reports an upstream refusal with its code and exit code', async () => {
    const result = await svc(['generate', 'a fox [sim:moderation]', '--provider', 'api'], 60_000);
    expect(result.code).toBe(EXIT_CODES.upstream);
    expect(result.stderr).toContain('MODERATION_REFUSED');
  });

  it('history ls, rm and restore', async () => {
    const listed = JSON.parse((await svc(['history', 'ls', '--json'])).stdout);
    expect(listed.items.length).toBeGreaterThanOrEqual(4);
    const newest = listed.items[0].filename;
    const removed = await svc(['history', 'rm', newest, '--json']);
    expect(removed.code, removed.stderr).toBe(0);
    const after = JSON.parse((await svc(['history', 'ls', '--json'])).stdout);
    expect(after.items.map((item: { filename: string }) => item.filename)).not.toContain(newest);
    const restored = await svc(['history', 'restore', newest]);
    expect(restored.code, restored.stderr).toBe(0);
    const again = JSON.parse((await svc(['history', 'ls', '--json'])).stdout);
    expect(again.items[0].filename).toBe(newest);
    const traversal = await svc(['history', 'rm', '../../etc/passwd']);
    expect(traversal.code).toBe(EXIT_CODES.bad_request);
  });

  it('on a client timeout prints the requestId and the job still lands in history', async () => {
    const result = await svc(
      ['generate', 'a slow owl [sim:slow=6000]', '--provider', 'api', '--timeout', '2', '--request-id', 'owl-timeout-1'],
      30_000,
    );
    expect(result.code).toBe(EXIT_CODES.timeout);
    expect(result.stderr).toContain('owl-timeout-1');
    expect(result.stderr).toContain('svc history ls');
    // The studio still runs the job (read over HTTP: a spawned CLI would take longer than the job on a busy machine)...
    const inflight = (await (await studio.request('/api/inflight')).json()) as { jobs: { requestId: string }[] };
    expect(inflight.jobs.map((job) => job.requestId)).toContain('owl-timeout-1');
    // ...and finishes it although the client left: its image lands in history, which the CLI lists.
    await vi.waitFor(
      async () => expect(((await (await studio.request('/api/jobs/owl-timeout-1')).json()) as { state: string }).state).toBe('succeeded'),
      { timeout: 20_000, interval: 200 },
    );
    const page = JSON.parse((await svc(['history', 'ls', '--json'])).stdout);
    expect(page.items.some((item: { requestId: string }) => item.requestId === 'owl-timeout-1')).toBe(true);
  });

  it('svc events follows one job live and stops on Ctrl-C', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', SVC, 'events', '--json', '--request', 'events-cli-1', '--server', studio.url],
      {
        env: { PATH: process.env.PATH, HOME: process.env.HOME },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const lines: Record<string, unknown>[] = [];
    let buffer = '';
    const done = new Promise<void>((resolve) => {
      child.stdout.on('data', (chunk) => {
        buffer += chunk;
        const parts = buffer.split('\n');
        buffer = parts.pop() ?? '';
        for (const part of parts) {
          const event = JSON.parse(part);
          lines.push(event);
          if (event.event === 'done') resolve();
        }
      });
    });
    try {
      // `[open]` on stderr means the subscription is live before the job starts.
      await new Promise<void>((resolve) => child.stderr.on('data', (chunk) => String(chunk).includes('[open]') && resolve()));
      const accepted = await fetch(`${studio.url}/api/generate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: 'a moth', provider: 'api', async: true, requestId: 'events-cli-1' }),
      });
      expect(accepted.status).toBe(202);
      await done;
      child.kill('SIGINT');
      expect(await exited).toBe(0);
    } finally {
      // Never leave the follower running if the test fails half-way.
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    expect(lines.every((event) => event.requestId === 'events-cli-1')).toBe(true);
    expect(lines[0].event).toBe('phase');
    expect(lines.some((event) => event.event === 'partial' && typeof event.b64 === 'string')).toBe(true);
  });

  it('inflight cancel on an unknown job exits with the bad-request code', async () => {
    const result = await svc(['inflight', 'cancel', 'no-such-job']);
    expect(result.code).toBe(EXIT_CODES.bad_request);
    expect(result.stderr).toContain('JOB_NOT_FOUND');
  });
});
