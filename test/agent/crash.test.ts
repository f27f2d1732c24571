import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobRecord, type AgentTurn } from '../../src/studio/api/index.js';
import { solidPng } from '../generate/rig.js';
import { startCrashRig, type CrashRig } from '../helpers/crash-rig.js';
import { call, createSession, enqueue, queue, waitFor } from './helpers.js';

// The bar's crash test of Agent Mode, with real processes: the simulators in
// their own process (`svc sim serve`, gamma predictions taking 3 s), the
// studio in another. Five turns are queued in a session on the gamma lane;
// the studio is killed with SIGKILL once the first has finished and the second
// is with the vendor. Restarted, it loses none and runs none twice: the second
// continues from its recorded prediction (its plan kept on its turn), the
// other three run after it, in order.

const LATENCY_MS = 3000;
const PROMPTS = [
  'a lighthouse, take one',
  'a lighthouse, take two',
  'a lighthouse, take three',
  'a lighthouse, take four',
  'a lighthouse, take five',
];

let rig: CrashRig;

/** The gamma simulator's submits (it runs in the other process: read over HTTP). */
const submits = async (): Promise<string[]> =>
  (await rig.simRequests<{ body: unknown }>('SVC_GAMMA_BASE_URL', 'POST /api/v1/model/generateImage')).map((entry) =>
    JSON.stringify(entry.body),
  );

beforeAll(async () => {
  rig = await startCrashRig('agent-crash', LATENCY_MS);
});

afterAll(() => rig.close());

describe('the agent queue across a studio crash', () => {
  it('five queued turns, SIGKILL after the first finished: the other four complete in order, none lost, none run twice', async () => {
    const first = await rig.startStudio();
    const session = await createSession(first, { title: 'Crash', settings: { provider: 'gamma' } });
    const items: AgentTurn[] = [];
    // The last one brings a reference image: held in memory by the process that queued it, and stored with its job.
    const reference = await solidPng(64, 64);
    for (const [index, prompt] of PROMPTS.entries())
      items.push(await enqueue(first, session.id, prompt, index === 4 ? { references: [reference] } : {}));

    await waitFor('the first item to finish', async () => (await queue(first, session.id)).items[0].state === 'succeeded', 30_000);
    // The second is with the vendor: its prediction recorded on its job.
    const second = await waitFor('the second item to reach the vendor', async () => {
      const record = jobRecord.parse((await call(first, 'GET', `/api/jobs/${items[1].itemId}`)).body);
      return record.upstream ? record : undefined;
    });
    const before = await queue(first, session.id);
    expect(before.items.map((item) => item.state)).toEqual(['succeeded', 'running', 'queued', 'queued', 'queued']);
    await rig.stopStudio('SIGKILL');

    const restarted = await rig.startStudio();
    const done = await waitFor(
      'every item to end after the restart',
      async () => {
        const current = await queue(restarted, session.id);
        return current.items.every((item) => !['queued', 'running'].includes(item.state)) ? current : undefined;
      },
      40_000,
    );
    expect(done.items.map((item) => item.itemId)).toEqual(items.map((item) => item.itemId));
    expect(done.items.map((item) => item.state)).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded', 'succeeded']);
    // None retried: every item ran on its first attempt, each made its one image.
    for (const item of done.items) {
      expect(item).toMatchObject({ attempt: 1, provider: 'gamma', error: null });
      expect(item.images).toHaveLength(1);
    }
    // In order: each started once the one before it had ended.
    for (let index = 1; index < done.items.length; index += 1) {
      if (index === 1) continue; // the second started before the crash
      expect(Date.parse(done.items[index].startedAt ?? '')).toBeGreaterThanOrEqual(Date.parse(done.items[index - 1].finishedAt ?? ''));
    }
    // The second continued from its prediction: the same operation, not a new submit.
    const resumed = jobRecord.parse((await call(restarted, 'GET', `/api/jobs/${items[1].itemId}`)).body);
    expect(resumed).toMatchObject({ state: 'succeeded', upstream: { operationId: second.upstream?.operationId } });
    // The reference of the last one survived the crash: loaded from the stored inputs and uploaded, once.
    expect(await rig.simRequests('SVC_GAMMA_BASE_URL', 'POST /api/v1/model/uploadMedia')).toHaveLength(1);
    // One submit per turn upstream: none lost, none sent twice.
    const sent = await submits();
    expect(sent).toHaveLength(5);
    for (const prompt of PROMPTS)
      expect(
        sent.filter((body) => body.includes(prompt)),
        prompt,
      ).toHaveLength(1);
    // The session's current image is the last turn's.
    const body = await call<{ currentImage: { filename: string } }>(restarted, 'GET', `/api/agent/sessions/${session.id}`);
    expect(body.body.currentImage.filename).toBe(done.items[4].images[0].filename);
  }, 90_000);

  it('an item cut after it reached a direct lane is not sent again by itself: it fails JOB_INTERRUPTED, and retry runs it', async () => {
    const first = await rig.startStudio();
    const session = await createSession(first, { title: 'Direct', settings: { provider: 'oauth' } });
    const item = await enqueue(first, session.id, '/new a kite over the dunes');
    await waitFor('the item to reach the upstream', async () => {
      const record = jobRecord.parse((await call(first, 'GET', `/api/jobs/${item.itemId}`)).body);
      return record.state === 'running' && record.reachedUpstream;
    });
    await rig.stopStudio('SIGKILL');

    const restarted = await rig.startStudio();
    const failed = await waitFor('the item to end', async () => {
      const current = (await queue(restarted, session.id)).items[0];
      return current.state === 'running' || current.state === 'queued' ? undefined : current;
    });
    expect(failed).toMatchObject({ state: 'failed', error: { code: 'JOB_INTERRUPTED' }, images: [] });
    expect((await call(restarted, 'POST', `/api/agent/queue/${item.itemId}/retry`)).status).toBe(202);
    const done = await waitFor('the retried item', async () => {
      const current = (await queue(restarted, session.id)).items[0];
      return current.state === 'succeeded' ? current : undefined;
    });
    expect(done).toMatchObject({ attempt: 2, provider: 'oauth' });
    expect(done.images).toHaveLength(1);
  }, 60_000);

  it('a graceful stop (SIGTERM) while a turn is with the vendor leaves it to resume, not cancelled', async () => {
    const first = await rig.startStudio();
    const session = await createSession(first, { title: 'Stop', settings: { provider: 'gamma' } });
    const item = await enqueue(first, session.id, '/new a calm harbour at dawn');
    await waitFor(
      'the item to reach the vendor',
      async () => jobRecord.parse((await call(first, 'GET', `/api/jobs/${item.itemId}`)).body).upstream ?? undefined,
    );
    await rig.stopStudio('SIGTERM');

    const restarted = await rig.startStudio();
    const done = await waitFor('the resumed item', async () => {
      const current = (await queue(restarted, session.id)).items[0];
      return ['queued', 'running'].includes(current.state) ? undefined : current;
    });
    expect(done).toMatchObject({ state: 'succeeded', attempt: 1, error: null, provider: 'gamma' });
  }, 60_000);
});
