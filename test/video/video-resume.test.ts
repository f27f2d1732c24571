import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCrashRig, type CrashRig } from '../helpers/crash-rig.js';
import { waitFor } from '../lanes/gamma-delta-epsilon-rig.js';

// The bar's crash test for video, with real processes: the simulators in their
// own process (`svc sim serve`, a video job runs 3 s), the studio in another.
// The studio is killed with SIGKILL while it polls; restarted, it continues
// the upstream job it recorded, and the video lands in history.

const LATENCY_MS = 3000;

let rig: CrashRig;
const job = (url: string, requestId: string) => rig.job(url, requestId);
const simRequests = (route: string) => rig.simRequests('SVC_ALPHA_BASE_URL', route);

beforeAll(async () => {
  rig = await startCrashRig('video-resume', LATENCY_MS);
});

afterAll(() => rig.close());

describe('a video job across a studio crash', () => {
  it('SIGKILL during the poll, restart: the recorded upstream job is resumed and the video lands in history', async () => {
    const first = await rig.startStudio({ SVC_VIDEO_POLL_MS: '200' });
    const accepted = await fetch(`${first}/api/video/generate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        provider: 'alpha-api',
        prompt: 'a lighthouse in a storm',
        duration: 1,
        async: true,
        requestId: 'video-crash',
      }),
    });
    expect(accepted.status).toBe(202);
    const recorded = await waitFor('the upstream id on the job', async () => (await job(first, 'video-crash')).upstream ?? undefined);
    await waitFor('a first poll', async () => (await simRequests('GET /v1/videos/:id')).length > 0);
    await rig.stopStudio('SIGKILL');

    const restarted = await rig.startStudio({ SVC_VIDEO_POLL_MS: '200' });
    const done = await waitFor('the resumed job to end', async () => {
      const record = await job(restarted, 'video-crash');
      return record.finishedAt === null ? undefined : record;
    });
    expect(done).toMatchObject({
      requestId: 'video-crash',
      state: 'succeeded',
      kind: 'video',
      provider: 'alpha-api',
      error: null,
      upstream: { operationId: recorded.operationId },
    });
    const result = done.result as { video: { filename: string; format: string } };
    expect(result.video.format).toBe('mp4');
    const history = (await (await fetch(`${restarted}/api/history?kind=video`)).json()) as { items: { filename: string }[] };
    expect(history.items.map((item) => item.filename)).toEqual([result.video.filename]);
    expect((await fetch(`${restarted}/generated/${result.video.filename}`)).status).toBe(200);
    // One create only: the restarted studio polled the same upstream job.
    expect(await simRequests('POST /v1/videos/generations')).toHaveLength(1);
    const polls = await simRequests('GET /v1/videos/:id');
    expect(new Set(polls.map((entry) => entry.path))).toEqual(new Set([`/v1/videos/${recorded.operationId}`]));
  }, 60_000);
});
