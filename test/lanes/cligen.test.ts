import { existsSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeCligen } from '../../src/sim/cligen/index.js';
import { expectError, groupMembers, imageDataUrl, isAlive, referenceDirs, startCligenRig, waitFor, type CligenRig } from './cligen-rig.js';

// The cligen lane with the fake CLI run as a real process: what it is given
// (argv, stdin, a minimal environment, reference files in a private temp dir
// that is always removed), the 1024x1024 JPEG it returns, how its output is
// read, every failure, and the process tree killed on timeout and on cancel.

let rig: CligenRig;

beforeAll(async () => {
  rig = await startCligenRig({ env: { LANG: 'C.UTF-8', GEMINI_API_KEY: 'gm-key-0123456789', SOME_STUDIO_SECRET: 'not-for-the-cli' } });
});

afterAll(async () => {
  await rig?.stop();
});

interface ImageAnswer {
  readonly provider: string;
  readonly model: string;
  readonly images: { width: number; height: number; format: string }[];
  readonly settings: Record<string, unknown>;
}

async function expectImage(response: Response): Promise<ImageAnswer> {
  const body = (await response.json()) as ImageAnswer & { error?: unknown };
  expect({ status: response.status, error: body.error }).toEqual({ status: 200, error: undefined });
  expect(body.images).toHaveLength(1);
  return body;
}

describe('cligen: a run', () => {
  it('returns a 1024x1024 JPEG, free; the CLI got `-p -`, the instruction on stdin and only the minimal environment', async () => {
    const result = await expectImage(await rig.generate({ prompt: 'a paper crane on a desk' }));
    expect(result).toMatchObject({ provider: 'cligen', model: 'nano-fruit-2' });
    expect(result.images[0]).toMatchObject({ width: 1024, height: 1024, format: 'jpeg' });
    expect(result.settings).toMatchObject({ size: '1024x1024', format: 'jpeg', estimatedCostUsd: 0, references: 0, action: 'generate' });

    const run = rig.runs().at(-1);
    expect(run).toMatchObject({ argv: ['-p', '-'], prompt: 'a paper crane on a desk', imagePaths: [] });
    expect(run?.imageName).toMatch(/^svc_generated_[0-9a-f]{12}$/);
    expect(run?.env).toEqual(['GEMINI_API_KEY', 'HOME', 'LANG', 'PATH', 'TEMP', 'TMPDIR', 'USERPROFILE']);
    // Found through SVC_CLIGEN_BIN: its folder leads the CLI's PATH.
    expect(run?.pathHead).toBe(dirname(rig.fake.program));
    // Taken: the CLI's copy and its (now empty) folder are gone; nothing else in its folder was touched.
    const brain = join(rig.fake.home, '.gemini', 'antigravity-cli', 'brain');
    expect(readdirSync(brain)).toEqual([]);
  });

  it('writes the references to a private temp dir the CLI reads, removed after the run; an edit sends its image first', async () => {
    const [png, jpeg, webp] = [await imageDataUrl('png'), await imageDataUrl('jpeg'), await imageDataUrl('webp')];
    const result = await expectImage(await rig.generate({ prompt: 'three friends', references: [png, jpeg, webp] }));
    expect(result.settings).toMatchObject({ references: 3 });
    const run = rig.runs().at(-1);
    expect(run?.imagePaths.map((path) => path.split('/').at(-1))).toEqual(['ref_0.png', 'ref_1.jpg', 'ref_2.webp']);
    expect(run?.references.every((reference) => reference.bytes > 0)).toBe(true);
    expect(dirname(run?.imagePaths[0] ?? '')).toMatch(new RegExp(`^${rig.tmp}/svc_generated-refs-[0-9a-f]{12}`));
    expect(existsSync(dirname(run?.imagePaths[0] ?? ''))).toBe(false);

    const edited = await expectImage(await rig.generate({ prompt: 'make it night', image: jpeg, references: [png] }, '/api/edit'));
    expect(edited.settings).toMatchObject({ action: 'edit', references: 1 });
    expect(
      rig
        .runs()
        .at(-1)
        ?.imagePaths.map((path) => path.split('/').at(-1)),
    ).toEqual(['ref_0.jpg', 'ref_1.png']);
    expect(referenceDirs(rig.tmp)).toEqual([]);
  });

  it('reads the output every way the CLI may give it: RESULT on stderr, SAVED_PATH, nothing at all (the artifact is found)', async () => {
    for (const marker of ['stderr-result', 'saved-path', 'silent']) {
      const result = await expectImage(await rig.generate({ prompt: `a heron [fake:${marker}]` }));
      expect({ marker, width: result.images[0].width, format: result.images[0].format }).toEqual({ marker, width: 1024, format: 'jpeg' });
    }
  });
});

describe('cligen: refusals before spawning', () => {
  it('CLIGEN_REF_TOO_MANY: 4 references (3 with an edited image); nothing is spawned', async () => {
    const before = rig.runs().length;
    const png = await imageDataUrl('png');
    const body = await expectError(await rig.generate({ prompt: 'x', references: [png, png, png, png] }), 400, 'CLIGEN_REF_TOO_MANY');
    expect(body.error.details).toMatchObject({ max: 3 });
    await expectError(
      await rig.generate({ prompt: 'x', image: png, references: [png, png, png] }, '/api/edit'),
      400,
      'CLIGEN_REF_TOO_MANY',
    );
    expect(rig.runs()).toHaveLength(before);
  });

  it('no quality or size control (LANE_UNSUPPORTED naming it), no mask (CLIGEN_MASK_UNSUPPORTED), nano-fruit-2 only', async () => {
    const before = rig.runs().length;
    // Spec: no quality, size or mask controls; format, where it is silent, is dropped with a warning (test/studio/spec-client.test.ts).
    for (const [field, value] of [
      ['quality', 'high'],
      ['size', '1024x1536'],
    ] as const) {
      const body = await expectError(await rig.generate({ prompt: 'x', [field]: value }), 400, 'LANE_UNSUPPORTED');
      expect(body.error.details).toMatchObject({ lane: 'cligen', field });
    }
    const png = await imageDataUrl('png');
    await expectError(await rig.generate({ prompt: 'x', image: png, mask: png }, '/api/edit'), 400, 'CLIGEN_MASK_UNSUPPORTED');
    await expectError(await rig.generate({ prompt: 'x', model: 'nano-fruit-pro' }), 400, 'IMAGE_MODEL_UNSUPPORTED');
    await expectError(await rig.generate({ prompt: 'x', model: 'nano-fruit-9' }), 400, 'INVALID_IMAGE_MODEL');
    expect(rig.runs()).toHaveLength(before);
  });
});

describe('cligen: failures of the CLI', () => {
  it('CLIGEN_QUOTA_EXHAUSTED: an ERROR| line with quota wording, and quota wording without a prefix', async () => {
    const body = await expectError(await rig.generate({ prompt: 'x [fake:quota]' }), 429, 'CLIGEN_QUOTA_EXHAUSTED');
    expect(body.error.message).toContain('exhausted your capacity');
    await expectError(await rig.generate({ prompt: 'x [fake:raw-quota]' }), 429, 'CLIGEN_QUOTA_EXHAUSTED');
  });

  it('CLIGEN_GENERATION_FAILED with the reason: an ERROR| line, a crash, a bare exit code, a malformed RESULT', async () => {
    const cases = [
      ['error', 'cli_error', 'could not draw this'],
      ['crash', 'process_error', 'SIGABRT'],
      ['nonzero', 'process_error', 'exited with code 7: fatal: the simulated CLI could not load its configuration'],
      ['malformed', 'malformed_result', 'RESULT|'],
    ] as const;
    for (const [marker, reason, says] of cases) {
      const body = await expectError(await rig.generate({ prompt: `x [fake:${marker}]` }), 502, 'CLIGEN_GENERATION_FAILED');
      expect({ marker, reason: body.error.details?.reason, says: body.error.message.includes(says) }).toEqual({
        marker,
        reason,
        says: true,
      });
    }
  });

  it("CLIGEN_GENERATION_FAILED: an artifact that is missing, outside the CLI's folders, or a symlink is not taken", async () => {
    const cases = [
      ['missing', 'artifact_not_found'],
      ['outside', 'path_rejected'],
      ['symlink', 'path_rejected'],
    ] as const;
    for (const [marker, reason] of cases) {
      const body = await expectError(await rig.generate({ prompt: `x [fake:${marker}]` }), 502, 'CLIGEN_GENERATION_FAILED');
      expect({ marker, reason: body.error.details?.reason }).toEqual({ marker, reason });
    }
    // The file outside was neither read into history nor deleted.
    expect(readdirSync(join(rig.fake.home, 'Pictures')).length).toBeGreaterThan(0);
  });

  it('CLIGEN_TIMEOUT: a hanging CLI (deaf to SIGTERM, with a grandchild) is killed with its whole tree', async () => {
    const impatient = await startCligenRig({ env: { SVC_CLIGEN_TIMEOUT_MS: '1500' } });
    try {
      const body = await expectError(await impatient.generate({ prompt: 'x [fake:hang]' }), 504, 'CLIGEN_TIMEOUT');
      expect(body.error.details).toMatchObject({ timeoutMs: 1500 });
      const run = impatient.runs().at(-1);
      expect(run?.grandchild).toBeGreaterThan(0);
      await waitFor("the CLI's process group to be gone", () => groupMembers(run?.pid ?? 0).length === 0);
      expect([isAlive(run?.pid ?? 0), isAlive(run?.grandchild ?? 0)]).toEqual([false, false]);
      expect(referenceDirs(impatient.tmp)).toEqual([]);
    } finally {
      await impatient.stop();
    }
  });

  it('a cancel (DELETE /api/inflight/:id) kills the whole tree too, and the job ends JOB_CANCELLED', async () => {
    const png = await imageDataUrl('png');
    const accepted = await rig.generate({ prompt: 'x [fake:hang]', references: [png], async: true, requestId: 'cligen-cancel' });
    expect(accepted.status).toBe(202);
    const run = await waitFor('the CLI to start', () =>
      rig.runs().find((entry) => entry.markers.includes('hang') && entry.references.length === 1 && entry.grandchild),
    );
    expect(groupMembers(run.pid).length).toBeGreaterThanOrEqual(2);
    expect((await rig.studio.request('/api/inflight/cligen-cancel', { method: 'DELETE' })).status).toBe(200);
    const job = await waitFor('the job to end', async () => {
      const record = (await (await rig.studio.request('/api/jobs/cligen-cancel')).json()) as {
        state: string;
        error: { code: string } | null;
      };
      return record.state !== 'running' && record.state !== 'queued' && record;
    });
    expect(job).toMatchObject({ state: 'cancelled', error: { code: 'JOB_CANCELLED' } });
    await waitFor("the CLI's process group to be gone", () => groupMembers(run.pid).length === 0);
    expect(isAlive(run.grandchild ?? 0)).toBe(false);
    expect(referenceDirs(rig.tmp)).toEqual([]);
  });
});

describe('cligen: finding the CLI', () => {
  it('absent: /api/providers says needs_binary; a request is refused before spawning, naming the override that was skipped', async () => {
    const absent = await startCligenRig({ program: '/nowhere/agy', env: { PATH: dirname(process.execPath) } });
    try {
      const providers = (await (await absent.studio.request('/api/providers')).json()) as {
        providers: { id: string; state: string; reason: string }[];
      };
      const lane = providers.providers.find((provider) => provider.id === 'cligen');
      expect(lane).toMatchObject({ state: 'needs_binary' });
      expect(lane?.reason).toContain('SVC_CLIGEN_BIN names "/nowhere/agy"');
      const body = await expectError(await absent.generate({ prompt: 'x' }), 502, 'CLIGEN_GENERATION_FAILED');
      expect(body.error.details).toMatchObject({ reason: 'binary_not_found', env: 'SVC_CLIGEN_BIN' });
      expect(absent.runs()).toEqual([]);
    } finally {
      await absent.stop();
    }
  });

  it("without the override: the installer location ~/.local/bin is found, and its folder leads the CLI's PATH", async () => {
    const installed = await startCligenRig({ program: false });
    const fake = startFakeCligen();
    try {
      const bin = join(installed.home, '.local', 'bin');
      mkdirSync(bin, { recursive: true });
      symlinkSync(fake.program, join(bin, 'agy'));
      const providers = (await (await installed.studio.request('/api/providers')).json()) as {
        providers: { id: string; state: string; reason: string }[];
      };
      expect(providers.providers.find((provider) => provider.id === 'cligen')).toMatchObject({
        state: 'ready',
        reason: expect.stringContaining(join(bin, 'agy')),
      });
      const result = await expectImage(await installed.generate({ prompt: 'found it' }));
      expect(result.settings).toMatchObject({ program: join(bin, 'agy') });
      expect(installed.runs().at(-1)?.pathHead).toBe(bin);
    } finally {
      await fake.close();
      await installed.stop();
    }
  });
});
