import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../lanes/gamma-delta-epsilon-rig.js';
import { startMcpRig, type McpRig } from './mcp-rig.js';

// eta with execution unlocked by configuration (a paid plan), and the ends of
// a task the studio decides: its deadline and a cancel.

let rig: McpRig;

beforeAll(async () => {
  rig = await startMcpRig({ env: { SVC_ETA_EXECUTABLE: '1', SVC_ZETA_TIMEOUT_MS: '1000' } });
});

afterAll(() => rig?.stop());

const etaCalls = (tool: string) => rig.eta.host.calls.filter((call) => call.tool === tool);

describe('eta unlocked', () => {
  it('generates an image from its live catalog, a gallery file uploaded as a media id', async () => {
    expect(
      (
        await rig.post('/api/mcp/generate', {
          provider: 'eta',
          kind: 'image',
          prompt: 'a red kite',
          model: 'soul_2',
          ratio: '3:4',
          parameters: { quality: 'high' },
          requestId: 'eta-1',
        })
      ).status,
    ).toBe(202);
    const first = await rig.until('eta-1');
    const done = first.at(-1) as unknown as {
      event: string;
      result: { asset: { filename: string; width: number; height: number; provider: string } };
    };
    expect(done.event).toBe('done');
    expect(done.result.asset).toMatchObject({ provider: 'eta', width: 768, height: 1024 });
    expect(etaCalls('generate_image')[0].arguments).toEqual({
      params: { model: 'soul_2', prompt: 'a red kite', aspect_ratio: '3:4', quality: 'high', use_unlim: true },
    });
    expect(etaCalls('job_status').every((call) => call.arguments.sync === true)).toBe(true);

    expect(
      (
        await rig.post('/api/mcp/generate', {
          provider: 'eta',
          kind: 'image',
          prompt: 'the kite again',
          model: 'nano_banana_pro',
          referenceFilenames: [done.result.asset.filename],
          requestId: 'eta-2',
        })
      ).status,
    ).toBe(202);
    expect((await rig.until('eta-2')).at(-1)?.event).toBe('done');
    const mediaId = (etaCalls('media_upload').length, etaCalls('media_confirm')[0].arguments.media_id);
    expect(etaCalls('generate_image')[1].arguments).toMatchObject({ params: { medias: [{ value: mediaId, role: 'image' }] } });
  }, 30_000);

  it('refuses what its models do not take, before any tool call', async () => {
    const before = rig.eta.host.calls.filter((call) => call.tool !== 'models_explore').length;
    await expectError(
      await rig.post('/api/mcp/generate', { provider: 'eta', kind: 'image', prompt: 'x', model: 'soul_2', parameters: { steps: 4 } }),
      400,
      'MCP_PARAMETER_UNSUPPORTED',
    );
    await expectError(
      await rig.post('/api/mcp/generate', {
        provider: 'eta',
        kind: 'image',
        prompt: 'x',
        model: 'soul_2',
        parameters: { quality: 'ultra' },
      }),
      400,
      'MCP_PARAMETER_INVALID',
    );
    await expectError(
      await rig.post('/api/mcp/generate', { provider: 'eta', kind: 'video', prompt: 'x', referenceVideoFilename: 'clip.mp4' }),
      400,
      'MCP_INPUT_ROLE_UNSUPPORTED',
    );
    await expectError(
      await rig.post('/api/mcp/generate', { provider: 'eta', kind: 'video', prompt: 'x', model: 'soul_2' }),
      400,
      'MCP_MODEL_UNSUPPORTED',
    );
    expect(rig.eta.host.calls.filter((call) => call.tool !== 'models_explore').length).toBe(before);
  });
});

describe('the studio ends a task', () => {
  it('past its deadline: MCP_JOB_TIMEOUT', async () => {
    expect(
      (await rig.post('/api/mcp/generate', { provider: 'zeta', kind: 'image', prompt: 'forever [sim:never]', requestId: 'zeta-timeout' }))
        .status,
    ).toBe(202);
    const error = (await rig.until('zeta-timeout', 30_000)).at(-1) as unknown as { error: { code: string } };
    expect(error.error.code).toBe('MCP_JOB_TIMEOUT');
  }, 40_000);

  it('a cancel stops the polls: JOB_CANCELLED', async () => {
    expect(
      (await rig.post('/api/mcp/generate', { provider: 'zeta', kind: 'image', prompt: 'stop me [sim:never]', requestId: 'zeta-cancel' }))
        .status,
    ).toBe(202);
    await rig.until('zeta-cancel', 1).catch(() => undefined);
    for (
      let tries = 0;
      tries < 100 && !rig.events.some((event) => event.requestId === 'zeta-cancel' && event.event === 'progress');
      tries += 1
    )
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await rig.studio.request('/api/inflight/zeta-cancel', { method: 'DELETE' })).status).toBeLessThan(300);
    const error = (await rig.until('zeta-cancel')).at(-1) as unknown as { error: { code: string } };
    expect(error.error.code).toBe('JOB_CANCELLED');
    // The server was told, through the protocol's tasks/cancel, and the job says it confirmed.
    const job = (await (await rig.studio.request('/api/jobs/zeta-cancel')).json()) as {
      state: string;
      cancelConfirmed: boolean | null;
      upstream: { operationId: string };
    };
    expect(job).toMatchObject({ state: 'cancelled', cancelConfirmed: true });
    expect(rig.zeta.host.calls.filter((call) => call.tool === 'tasks/cancel').map((call) => call.arguments.taskId)).toEqual([
      job.upstream.operationId,
    ]);
  }, 30_000);
});
