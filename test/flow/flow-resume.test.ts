import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_WORKFLOW } from '../../src/demo/sample-workflow.js';
import { startCrashRig, type CrashRig } from '../helpers/crash-rig.js';

// The bar's crash test for flow, with real processes: the node-graph
// simulator in its own process (`svc sim serve`), the studio in another. The
// studio is SIGKILLed while the node-graph server runs its prompt; restarted,
// it re-attaches to the prompt it recorded (history is the source of truth)
// and the image still lands, with one submit upstream.

/** A sampler of 20 steps takes this long upstream: long enough to kill the studio mid-run. */
const LATENCY_MS = 3000;

let rig: CrashRig;
const post = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const job = (url: string, requestId: string) => rig.job(url, requestId);
const simRequests = (route: string) => rig.simRequests<{ body: unknown }>('SVC_FLOW_BASE_URL', route);

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeAll(async () => {
  rig = await startCrashRig('flow-resume', LATENCY_MS);
});

afterAll(() => rig.close());

describe('a flow job across a studio crash', () => {
  it('SIGKILL while the prompt runs, restart: the recorded prompt is re-attached and its image delivered', async () => {
    expect(rig.origin('SVC_FLOW_BASE_URL')).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const first = await rig.startStudio();
    expect(
      (await post(`${first}/api/flow/workflows`, { id: 'sample', graph: SAMPLE_WORKFLOW.graph, bind: SAMPLE_WORKFLOW.bind })).status,
    ).toBe(201);
    const accepted = await post(`${first}/api/generate`, {
      provider: 'flow',
      model: 'sample',
      prompt: 'a lighthouse in a storm',
      size: '640x448',
      async: true,
      requestId: 'flow-crash',
    });
    expect(accepted.status).toBe(202);
    const recorded = await waitFor('the prompt id on the job', async () => (await job(first, 'flow-crash')).upstream ?? undefined);
    // The server is running it (not finished): kill the studio now.
    await waitFor('the prompt to run upstream', async () => {
      const queue = (await (await fetch(`${rig.origin('SVC_FLOW_BASE_URL')}/queue`)).json()) as { queue_running: unknown[][] };
      return queue.queue_running[0]?.[1] === recorded.operationId ? true : undefined;
    });
    const before = await job(first, 'flow-crash');
    await rig.stopStudio('SIGKILL');
    const history = (await (await fetch(`${rig.origin('SVC_FLOW_BASE_URL')}/history/${recorded.operationId}`)).json()) as Record<
      string,
      unknown
    >;
    expect(history).toEqual({});

    const restarted = await rig.startStudio();
    const done = await waitFor('the re-attached job to end', async () => {
      const record = await job(restarted, 'flow-crash');
      return record.finishedAt === null ? undefined : record;
    });
    expect(done).toMatchObject({
      requestId: 'flow-crash',
      state: 'succeeded',
      provider: 'flow',
      error: null,
      upstream: { operationId: recorded.operationId },
    });
    expect(done.deadline).toBe(before.deadline);
    const result = done.result as { images: { filename: string; width: number; height: number }[]; settings: Record<string, unknown> };
    expect(result.images[0]).toMatchObject({ width: 640, height: 448 });
    expect(result.settings).toMatchObject({ workflow: 'sample', promptId: recorded.operationId, origin: rig.origin('SVC_FLOW_BASE_URL') });
    expect((await fetch(`${restarted}/generated/${result.images[0].filename}`)).status).toBe(200);
    // One submit only: the restarted studio followed the same prompt.
    expect(await simRequests('POST /prompt')).toHaveLength(1);
  }, 40_000);

  it('a graceful stop (SIGTERM) while the prompt runs leaves it running upstream, and the next start delivers it', async () => {
    const first = await rig.startStudio();
    const accepted = await post(`${first}/api/generate`, {
      provider: 'flow',
      model: 'sample',
      prompt: 'a calm harbour',
      async: true,
      requestId: 'flow-stop',
    });
    expect(accepted.status).toBe(202);
    const recorded = await waitFor('the prompt id on the job', async () => (await job(first, 'flow-stop')).upstream ?? undefined);
    await waitFor('the prompt to run upstream', async () => {
      const queue = (await (await fetch(`${rig.origin('SVC_FLOW_BASE_URL')}/queue`)).json()) as { queue_running: unknown[][] };
      return queue.queue_running[0]?.[1] === recorded.operationId ? true : undefined;
    });
    await rig.stopStudio('SIGTERM');
    // Detached, not cancelled: the server was told nothing.
    expect((await simRequests('POST /interrupt')).map((entry) => entry.body)).not.toContainEqual({ prompt_id: recorded.operationId });
    expect((await simRequests('POST /queue')).map((entry) => entry.body)).not.toContainEqual({ delete: [recorded.operationId] });

    const restarted = await rig.startStudio();
    const done = await waitFor('the resumed job to end', async () => {
      const record = await job(restarted, 'flow-stop');
      return record.finishedAt === null ? undefined : record;
    });
    expect(done).toMatchObject({ state: 'succeeded', error: null, upstream: { operationId: recorded.operationId } });
  }, 40_000);
});
