import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fsReason, prepareOut } from '../../src/cli/out-target.js';
import { startDemoStudio, type DemoStudio } from '../helpers/studio.js';
import { runSvc } from '../helpers/svc.js';

// Issue 29, items 13-14: `-o` on a demo studio. A directory takes the image
// under its history name; a missing parent is an error unless --mkdir; a path
// that cannot be written is one clear line (OUT_PATH_INVALID), before anything
// is generated; `svc trace <local file>` uploads nothing when refused.

let studio: DemoStudio;
let scratch: string;

beforeAll(async () => {
  studio = await startDemoStudio('svc-first-hour-cli-');
  scratch = join(tmpdir(), `svc-out-${process.pid}`);
  mkdirSync(scratch, { recursive: true });
});
afterAll(async () => {
  await studio?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

const svc = (...args: string[]) => runSvc(['--server', studio.url, ...args], { SVC_HOME: studio.home }, 60_000);
const historyCount = async () => ((await (await studio.request('/api/history?limit=200')).json()) as { items: unknown[] }).items.length;

describe('svc generate -o', () => {
  it('-o <dir>/ writes <dir>/<history name>.png; an existing directory without the slash does too', async () => {
    const dir = join(scratch, 'shots');
    mkdirSync(dir);
    const run = await svc('generate', 'a red kite', '-p', 'gamma', '-o', `${dir}/`, '--json');
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as { images: { filename: string }[]; saved: string[] };
    expect(result.saved).toEqual([join(dir, result.images[0].filename)]);
    expect(readdirSync(dir)).toEqual([result.images[0].filename]);

    const again = await svc('generate', 'a blue kite', '-p', 'gamma', '-o', dir, '--json');
    expect(again.code, again.stderr).toBe(0);
    expect(readdirSync(dir)).toHaveLength(2);
  });

  it('a missing parent is an error before anything is generated, unless --mkdir', async () => {
    const before = await historyCount();
    const missing = join(scratch, 'no', 'such', 'dir');
    const refused = await svc('generate', 'a kite', '-p', 'gamma', '-o', join(missing, 'kite.png'));
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(/does not exist \(add --mkdir to create it\).*OUT_PATH_INVALID/);
    const refusedDir = await svc('generate', 'a kite', '-p', 'gamma', '-o', `${missing}/`, '--json');
    expect(refusedDir.code).toBe(2);
    expect(JSON.parse(refusedDir.stdout)).toMatchObject({ error: { code: 'OUT_PATH_INVALID' } });
    expect(await historyCount()).toBe(before);

    const made = await svc('generate', 'a kite', '-p', 'gamma', '-o', join(missing, 'kite.png'), '--mkdir', '--json');
    expect(made.code, made.stderr).toBe(0);
    expect(existsSync(join(missing, 'kite.png'))).toBe(true);
  });

  it('a file in the way, a FIFO and /proc are one-line errors, never a hang or an internal error', async () => {
    const file = join(scratch, 'plain.txt');
    writeFileSync(file, 'x');
    const fifo = join(scratch, 'pipe.png');
    execFileSync('mkfifo', [fifo]);
    for (const target of [join(file, 'kite.png'), `${file}/`, fifo, '/proc/kite.png', '/dev/kite.png']) {
      const run = await svc('generate', 'a kite', '-p', 'gamma', '-o', target);
      expect(run.code, `${target}: ${run.stderr}`).toBe(2);
      expect(run.stderr.trim().split('\n'), target).toHaveLength(1);
      expect(run.stderr, target).toContain('OUT_PATH_INVALID');
      expect(run.stderr, target).not.toContain('internal error');
    }
  });
});

describe('the file-system reasons', () => {
  it('name EACCES, EEXIST, ENOSPC and EROFS in words (root cannot meet EACCES here, so the mapper is checked directly)', () => {
    const error = (code: string) => Object.assign(new Error(`${code}: x`), { code });
    expect(fsReason(error('EACCES'))).toBe('permission denied');
    expect(fsReason(error('EEXIST'))).toBe('a file of that name already exists');
    expect(fsReason(error('ENOSPC'))).toBe('no space left on the device');
    expect(fsReason(error('EROFS'))).toBe('read-only file system');
  });

  it('prepareOut refuses sysfs by its filesystem type too', () => {
    expect(() => prepareOut('/sys/kernel/kite.png')).toThrow(/special filesystem/);
  });
});

describe('svc trace <local file>', () => {
  it('uploads nothing when the preset or a parameter is refused', async () => {
    const png = join(scratch, 'source.png');
    const sharp = (await import('sharp')).default;
    await sharp({ create: { width: 64, height: 64, channels: 3, background: '#c33' } })
      .png()
      .toFile(png);
    const before = await historyCount();
    for (const args of [
      ['--preset', 'nope'],
      ['--param', 'colorPrecision=99'],
      ['--param', 'bogus=1'],
    ]) {
      const run = await svc('trace', png, ...args, '--json');
      expect(run.code, run.stdout).toBe(5);
      expect((JSON.parse(run.stdout) as { error: { code: string } }).error.code).toMatch(/^TRACE_(PRESET_UNKNOWN|PARAMETER_INVALID)$/);
    }
    expect(await historyCount()).toBe(before);
    const ok = await svc('trace', png, '--preset', 'poster', '-o', `${scratch}/`, '--json');
    expect(ok.code, ok.stderr).toBe(0);
    const svg = JSON.parse(ok.stdout) as { filename: string; saved: string };
    expect(svg.saved).toBe(join(scratch, svg.filename));
  });
});

describe('item 14: the CLI says things once and readably', () => {
  it('svc capabilities prints nested values readably', async () => {
    const run = await svc('capabilities');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toContain('[object Object]');
    expect(run.stdout).toMatch(/tracing:\n\s+presets:/);
    expect(run.stdout).toMatch(/limits:/);
  });

  it('svc models <unknown lane> exits 2 naming the lanes; a known lane lists its models', async () => {
    const unknown = await svc('models', 'nolane');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/Unknown lane "nolane" \(lanes: oauth, api/);
    const known = await svc('models', 'delta');
    expect(known.code, known.stderr).toBe(0);
    expect(known.stdout).toContain('delta/image-01');
  });

  it('--json prints one JSON document on usage errors too', async () => {
    for (const args of [
      ['generate', '--json'],
      ['generate', 'x', '--bogus', '--json'],
      ['nosuchcommand', '--json'],
    ]) {
      const run = await svc(...args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(JSON.parse(run.stdout), args.join(' ')).toMatchObject({ error: { code: 'USAGE' } });
      expect(run.stderr, args.join(' ')).toBe('');
    }
  });

  it('Ctrl-C during svc generate cancels the job and prints one line', async () => {
    const { spawn } = await import('node:child_process');
    const { SVC } = await import('../helpers/svc.js');
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', SVC, '--server', studio.url, 'generate', 'slow kite [sim:slow=8000]', '-p', 'delta', '--request-id', 'ctrl-c-1'],
      {
        env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', SVC_HOME: studio.home },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    // Wait until the studio has the job, then interrupt.
    for (let attempt = 0; attempt < 100; attempt += 1) {
      const job = await studio.request('/api/jobs/ctrl-c-1');
      if (job.status === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(stderr.trim().split('\n')).toEqual(['svc: cancelled ctrl-c-1 (Ctrl-C)']);
    const job = (await (await studio.request('/api/jobs/ctrl-c-1')).json()) as { state: string };
    expect(job.state).toBe('cancelled');
  });
});

describe('item 12: local times and plurals in the human output', () => {
  it('svc history ls shows creation times in the local time zone (TZ), --json keeps the ISO instant', async () => {
    const env = { SVC_HOME: studio.home, TZ: 'Asia/Kolkata' };
    expect(
      (
        await studio.request('/api/generate', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ prompt: 'a clock', provider: 'gamma' }),
        })
      ).status,
    ).toBe(200);
    const json = await runSvc(['--server', studio.url, 'history', 'ls', '--limit', '1', '--json'], env, 30_000);
    const [item] = (JSON.parse(json.stdout) as { items: { createdAt: string; filename: string }[] }).items;
    expect(item.createdAt).toMatch(/Z$/);
    const human = await runSvc(['--server', studio.url, 'history', 'ls', '--limit', '1'], env, 30_000);
    expect(human.code, human.stderr).toBe(0);
    // Kolkata is UTC+05:30 all year.
    const local = new Date(Date.parse(item.createdAt) + 330 * 60_000).toISOString().replace('T', ' ').slice(0, 19);
    expect(human.stdout).toContain(local);
    expect(human.stdout).not.toContain(item.createdAt);
  });

  it('says "1 node", not "1 nodes"', async () => {
    const created = (await (
      await studio.request('/api/sessions', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'One node' }),
      })
    ).json()) as { id: string };
    await studio.request(`/api/sessions/${created.id}/graph`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'if-match': '1' },
      body: JSON.stringify({ nodes: [{ id: 'a', position: { x: 0, y: 0 } }], edges: [] }),
    });
    const run = await svc('sessions', 'show', created.id);
    expect(run.stdout + run.stderr).toContain('1 node, 0 edges');
  });
});
