import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCrashRig, type CrashRig } from '../helpers/crash-rig.js';
import { runSvc } from '../helpers/svc.js';

// The bar with real processes: the simulators in their own process
// (`svc sim serve`, the MCP servers among them), studios in others, the CLI as
// a user runs it. `svc generate|video --model zeta/<model> -o` write real files
// that are in history; eta answers 409 MCP_EXECUTION_LOCKED; a studio killed
// with SIGKILL during the task finishes it after its restart.

/** Each MCP task runs this long upstream: long enough to kill the studio mid-task. */
const LATENCY_MS = 3000;
const STUDIO_ENV = { SVC_MCP_POLL_MS: '300' };

let rig: CrashRig;

/** Polls `check` until it answers, for at most 30 s (a restart on a busy machine is slow). */
async function waitFor<T>(what: string, check: () => Promise<T | undefined | false>): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`Gave up waiting for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
let out: string;

beforeAll(async () => {
  rig = await startCrashRig('mcp-bar', LATENCY_MS);
  out = mkdtempSync(join(tmpdir(), 'svc-mcp-out-'));
});

afterAll(async () => {
  await rig?.close();
  rmSync(out, { recursive: true, force: true });
});

interface ToolCall {
  tool: string;
  arguments: Record<string, unknown>;
}
const zetaCalls = async (tool: string): Promise<ToolCall[]> =>
  ((await (await fetch(`${rig.origin('SVC_ZETA_BASE_URL')}/__sim/calls?tool=${tool}`)).json()) as { calls: ToolCall[] }).calls;

describe('the MCP lanes with the CLI', () => {
  it('svc sim serve gives the MCP lanes their endpoints and tokens', () => {
    expect(rig.simEnv).toMatchObject({
      SVC_ZETA_BASE_URL: expect.stringMatching(/\/mcp$/),
      SVC_ETA_BASE_URL: expect.stringMatching(/\/mcp$/),
      ZETA_MCP_TOKEN: expect.any(String),
      ETA_MCP_TOKEN: expect.any(String),
    });
  });

  it('svc generate and svc video with zeta/<model> write real files that are in history; eta is locked', async () => {
    const studio = await rig.startStudio(STUDIO_ENV);
    const png = join(out, 'k.png');
    const mp4 = join(out, 'k.mp4');
    const [image, video, locked] = await Promise.all([
      runSvc(['generate', 'a kite', '--model', 'zeta/nano-banana-pro', '-o', png, '--json', '--server', studio], {}, 60_000),
      runSvc(['video', 'a kite', '--model', 'zeta/seedance-2', '--duration', '4', '-o', mp4, '--json', '--server', studio], {}, 90_000),
      runSvc(['generate', 'a kite', '--model', 'eta/soul_2', '--json', '--server', studio], {}, 30_000),
    ]);
    expect(image.code, image.stderr).toBe(0);
    expect(video.code, video.stderr).toBe(0);
    expect(readFileSync(png).subarray(1, 4).toString()).toBe('PNG');
    expect(readFileSync(mp4).subarray(4, 8).toString()).toBe('ftyp');
    const imageResult = JSON.parse(image.stdout) as { asset: { filename: string }; saved: string };
    // svc video on an MCP lane submits to POST /api/mcp/generate (spec), its result the MCP job's.
    const videoResult = JSON.parse(video.stdout) as {
      provider: string;
      model: string;
      asset: { filename: string; video: { durationSeconds: number } };
    };
    expect(videoResult).toMatchObject({ provider: 'zeta', model: 'seedance-2' });
    expect(videoResult.asset.video.durationSeconds).toBeCloseTo(4, 0);
    const history = (await (await fetch(`${studio}/api/history?provider=zeta`)).json()) as { items: { filename: string }[] };
    expect(history.items.map((item) => item.filename).sort()).toEqual([imageResult.asset.filename, videoResult.asset.filename].sort());
    expect(locked.code).not.toBe(0);
    expect(`${locked.stdout}${locked.stderr}`).toMatch(/MCP_EXECUTION_LOCKED/);

    const models = await runSvc(['models', 'zeta', '--json', '--server', studio], {}, 20_000);
    const listed = JSON.parse(models.stdout) as {
      status: { state: string };
      models: { id: string; kind: string; aspectRatios: string[]; inputRoles: string[] }[];
    };
    expect(listed.status.state).toBe('ready');
    expect(listed.models.find((model) => model.id === 'gen-4-turbo')).toMatchObject({ kind: 'video', inputRoles: ['start_image'] });
    await rig.stopStudio('SIGTERM');
  }, 120_000);

  it('-o <dir>/ writes the file under its history name; no studio at the URL fails at once (exit 3), it never waits', async () => {
    const studio = await rig.startStudio(STUDIO_ENV);
    const dir = join(out, 'into-dir');
    const written = await runSvc(
      ['generate', 'a kite', '--model', 'zeta/nano-banana-pro', '-o', `${dir}/`, '--mkdir', '--json', '--server', studio],
      {},
      60_000,
    );
    expect(written.code, written.stderr).toBe(0);
    const saved = JSON.parse(written.stdout) as { asset: { filename: string }; saved: string };
    expect(saved.saved).toBe(join(dir, saved.asset.filename));
    expect(readFileSync(saved.saved).subarray(1, 4).toString()).toBe('PNG');
    await rig.stopStudio('SIGTERM');
    // The studio just stopped: nothing listens there now.
    const unreachable = await runSvc(['generate', 'a kite', '--model', 'zeta/nano-banana-pro', '--json', '--server', studio], {}, 20_000);
    expect(unreachable.code).toBe(3);
    expect(JSON.parse(unreachable.stdout)).toMatchObject({ error: { code: 'UNREACHABLE' } });
  }, 90_000);

  it('SIGKILL during the task, restart: the recorded task is polled again and its file lands in history', async () => {
    const first = await rig.startStudio(STUDIO_ENV);
    const post = await fetch(`${first}/api/mcp/generate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ provider: 'zeta', kind: 'image', prompt: 'a lighthouse in a storm', requestId: 'mcp-crash' }),
    });
    expect(post.status).toBe(202);
    const recorded = await waitFor('the task id on the job', async () => (await rig.job(first, 'mcp-crash')).upstream ?? undefined);
    await waitFor('a first poll', async () => (await zetaCalls('get_task')).some((call) => call.arguments.id === recorded.operationId));
    await rig.stopStudio('SIGKILL');

    const restarted = await rig.startStudio(STUDIO_ENV);
    const done = await waitFor('the resumed job to end', async () => {
      const record = await rig.job(restarted, 'mcp-crash');
      return record.finishedAt === null ? undefined : record;
    });
    expect(done).toMatchObject({ state: 'succeeded', kind: 'mcp', error: null, upstream: { operationId: recorded.operationId } });
    const result = done.result as { taskId: string; asset: { filename: string } };
    expect(result.taskId).toBe(recorded.operationId);
    expect((await fetch(`${restarted}/generated/${result.asset.filename}`)).status).toBe(200);
    // One submit of this prompt: the restarted studio polled the same task instead of generating again.
    expect((await zetaCalls('generate_image')).filter((call) => call.arguments.promptText === 'a lighthouse in a storm')).toHaveLength(1);
    expect(existsSync(out)).toBe(true);
  }, 60_000);
});
