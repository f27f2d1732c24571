import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobRecord } from '../../src/studio/api/index.js';
import { startRig, type Rig } from '../generate/rig.js';

// A lease that runs out while its own engine still runs the job (the event
// loop held past the lease, so no heartbeat renewed it) is not an orphan: the
// engine must not take its own job over and end it, or start it again.

let rig: Rig;

beforeAll(async () => {
  rig = await startRig({ env: { SVC_JOB_LEASE_MS: '300' } });
});

afterAll(async () => {
  await rig.stop();
});

describe('an expired lease of a job this engine runs', () => {
  it('is renewed, not adopted: the job ends once, succeeded, with one upstream call', async () => {
    expect(
      (await rig.post('/api/generate', { prompt: 'a held lighthouse [sim:slow=1500]', provider: 'api', async: true, requestId: 'held' }))
        .status,
    ).toBe(202);
    await new Promise((resolve) => setTimeout(resolve, 100));
    // Hold the loop well past the lease: no heartbeat runs meanwhile.
    const until = Date.now() + 900;
    while (Date.now() < until) {
      // busy
    }
    let record = jobRecord.parse(await (await rig.get('/api/jobs/held')).json());
    while (record.finishedAt === null) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      record = jobRecord.parse(await (await rig.get('/api/jobs/held')).json());
    }
    expect(record).toMatchObject({ state: 'succeeded', error: null });
    expect(rig.sim.simulator.requests().filter((entry) => JSON.stringify(entry.body).includes('a held lighthouse'))).toHaveLength(1);
  }, 20_000);
});
