import { readdirSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readSse } from '../../src/common/events/client.js';
import { jobRecord, type JobRecord, type LaneId } from '../../src/studio/api/index.js';
import { KEY_NAMESPACES } from '../../src/studio/auth/key-namespaces.js';
import { LANE_MODULES, LANES } from '../../src/studio/catalog/registry.js';
import { makeTempHome } from '../helpers/studio.js';
import { startSvc, type RunningSvc } from '../helpers/svc.js';

// The bar of the redesign, end to end with real processes: the simulators run
// in their own process (`svc sim serve`), the studio in another (`svc serve`,
// no --demo, configured only by the environment the simulators printed), and
// the studio is killed with SIGKILL in the middle of an async generation.

const LATENCY_MS = 1000;

let simulators: RunningSvc;
let simEnv: Record<string, string>;
const home = makeTempHome('svc-durable-');
const running: RunningSvc[] = [];

/** Fewer slots than the burst below, so some of its jobs are surely still queued at the crash. */
const MAX_RUNNING_JOBS = 16;

async function startStudioProcess(): Promise<{ process: RunningSvc; url: string }> {
  const studio = await startSvc(['serve', '--port', '0', '--json'], {
    SVC_HOME: home,
    ...simEnv,
    SVC_MAX_RUNNING_JOBS: String(MAX_RUNNING_JOBS),
  });
  running.push(studio);
  return { process: studio, url: String(studio.first.url) };
}

const post = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

beforeAll(async () => {
  simulators = await startSvc(['sim', 'serve', '--latency', String(LATENCY_MS)]);
  simEnv = (simulators.first as { env: Record<string, string> }).env;
});

afterAll(async () => {
  for (const child of running) await child.stop('SIGKILL');
  await simulators.stop();
  rmSync(home, { recursive: true, force: true });
});

describe('svc sim serve', () => {
  it('prints one JSON line: the lane base URLs and exactly the environment a studio needs', () => {
    const { upstreams, env } = simulators.first as { upstreams: Record<string, string>; env: Record<string, string> };
    expect(upstreams).toMatchObject({ api: expect.any(String), oauth: expect.any(String) });
    expect(env).toMatchObject({
      OMNI_API_KEY: expect.any(String),
      SVC_OAUTH_AUTH_FILE: expect.any(String),
      SVC_OAUTH_ISSUER_URL: expect.any(String),
    });
    // Each simulated lane's base URL under the variable its module names...
    for (const [lane, url] of Object.entries(upstreams)) expect(env[LANES[lane as LaneId].endpoints.base.env], lane).toBe(url);
    // ...and nothing a studio would not read: every variable is a lane endpoint's, a key's, or a lane credential's.
    const known = new Set([
      ...LANE_MODULES.flatMap((lane) => Object.values(lane.endpoints).map((endpoint) => endpoint.env)),
      ...Object.values(KEY_NAMESPACES).map((namespace) => namespace.env),
      ...LANE_MODULES.flatMap((lane) =>
        'fileEnv' in lane.credential
          ? [lane.credential.fileEnv]
          : 'overrideEnv' in lane.credential
            ? [lane.credential.overrideEnv, ...(lane.credential.homeEnv ? [lane.credential.homeEnv] : [])]
            : 'tokenEnv' in lane.credential
              ? [lane.credential.tokenEnv]
              : [],
      ),
    ]);
    for (const name of Object.keys(env)) expect(known.has(name), name).toBe(true);
  });
});

describe('a studio configured by that environment, killed mid-job', () => {
  it('generates on api and oauth without --demo, and keeps answering finished jobs', async () => {
    const { url } = await startStudioProcess();
    for (const provider of ['api', 'oauth'] as const) {
      const response = await post(`${url}/api/generate`, {
        prompt: `a lighthouse on ${provider}`,
        provider,
        requestId: `finished-${provider}`,
      });
      expect(response.status).toBe(200);
      const result = (await response.json()) as { provider: string; images: { filename: string }[] };
      expect(result.provider).toBe(provider);
      expect(result.images).toHaveLength(1);
    }
    // Finished jobs left /api/inflight but are still answered.
    expect(((await (await fetch(`${url}/api/inflight`)).json()) as { jobs: unknown[] }).jobs).toEqual([]);
    const finished = (await (await fetch(`${url}/api/jobs/finished-api`)).json()) as JobRecord;
    expect(jobRecord.parse(finished)).toMatchObject({ requestId: 'finished-api', state: 'succeeded', provider: 'api', error: null });
    expect(finished.result && 'images' in finished.result ? finished.result.images[0].provider : undefined).toBe('api');
  });

  it('logs a client that aborts mid-body as info, not as an error', async () => {
    const studio = running.at(-1) as RunningSvc;
    const { port } = new URL(String(studio.first.url));
    await new Promise<void>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write(
          `POST /api/generate HTTP/1.1\r\nHost: localhost:${port}\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n{"prompt":"cut`,
        );
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 200);
      });
      socket.on('error', reject);
    });
    // The server is still fine, and nothing at error level (pino level 50) was logged for it.
    expect((await fetch(`${String(studio.first.url)}/api/health`)).status).toBe(200);
    expect(studio.stderr()).not.toMatch(/"level":50/);
  });

  it('after SIGKILL and a restart, the accepted job answers interrupted with JOB_INTERRUPTED, also as an event', async () => {
    const first = running.at(-1) as RunningSvc;
    const url = String(first.first.url);
    // Follow the channel, as a client of the studio would, to resume after the restart.
    const events = await fetch(`${url}/api/events`, { headers: { accept: 'text/event-stream' } });
    const reader = readSse(events.body as ReadableStream<Uint8Array>);
    // `[sim:slow=…]` holds each upstream answer far longer than the test runs: the jobs are surely in flight at the kill.
    const accepted = await post(`${url}/api/generate`, {
      prompt: 'a slow comet [sim:slow=60000]',
      provider: 'api',
      async: true,
      requestId: 'crash-1',
    });
    expect(accepted.status).toBe(202);
    // A burst of accepted jobs too: none of them may vanish in the crash.
    const burst = Array.from({ length: 20 }, (_, index) => `burst-${index}`);
    for (const requestId of burst) {
      const response = await post(`${url}/api/generate`, {
        prompt: `a comet number ${requestId} [sim:slow=60000]`,
        provider: requestId.endsWith('1') ? 'oauth' : 'api',
        async: true,
        requestId,
      });
      expect(response.status).toBe(202);
    }
    // The first MAX_RUNNING_JOBS run (crash-1 and the burst's first 15); the rest wait in the queue.
    const runs = burst.slice(0, MAX_RUNNING_JOBS - 1);
    const waits = burst.slice(MAX_RUNNING_JOBS - 1);
    let lastId = '';
    for await (const message of reader) {
      lastId = message.id ?? lastId;
      const event = JSON.parse(message.data) as { event: string; requestId?: string; phase?: string };
      if (event.requestId === runs.at(-1) && event.event === 'phase' && event.phase === 'planning') break;
    }
    // The job is running upstream: crash now.
    await first.stop('SIGKILL');

    const restarted = await startStudioProcess();
    const job = jobRecord.parse(await (await fetch(`${restarted.url}/api/jobs/crash-1`)).json());
    expect(job).toMatchObject({
      requestId: 'crash-1',
      kind: 'generate',
      state: 'interrupted',
      provider: 'api',
      error: { code: 'JOB_INTERRUPTED' },
    });
    // The row had followed the job's phases (written off the request path, within a turn of the loop).
    expect(job.error?.details).toMatchObject({ requestId: 'crash-1', phase: 'planning' });
    expect(job.finishedAt).not.toBeNull();
    // No accepted job vanished: the ones in flight ended interrupted, the queued ones are still to run.
    for (const requestId of runs) {
      const record = (await (await fetch(`${restarted.url}/api/jobs/${requestId}`)).json()) as JobRecord;
      expect(record.state, requestId).toBe('interrupted');
    }
    for (const requestId of waits) {
      const record = (await (await fetch(`${restarted.url}/api/jobs/${requestId}`)).json()) as JobRecord;
      expect(['queued', 'running'], requestId).toContain(record.state);
      expect(record.attempt).toBe(1);
    }
    // A finished job of the earlier run is still answered after the restart.
    expect(((await (await fetch(`${restarted.url}/api/jobs/finished-oauth`)).json()) as JobRecord).state).toBe('succeeded');

    // The client resumes with its old cursor, which the event log still holds across the crash: no gap, the
    // events after it (the killed run's last ones, then the restart's), up to the interrupted job's error.
    const resumed = await fetch(`${restarted.url}/api/events`, { headers: { accept: 'text/event-stream', 'last-event-id': lastId } });
    const seen: { topic: string; event: string; requestId?: string; error?: { code: string } }[] = [];
    const ids: string[] = [];
    for await (const message of readSse(resumed.body as ReadableStream<Uint8Array>)) {
      seen.push(JSON.parse(message.data));
      ids.push(message.id ?? '');
      if (seen.some((event) => event.event === 'error' && event.requestId === 'crash-1')) break;
    }
    expect(seen.filter((event) => event.topic === 'system')).toEqual([]);
    // Same log, positions past the cursor, in order (a crash skips the rest of the block of seqs the killed run held).
    const [prefix, lastSeq] = lastId.split('-');
    const seqs = ids.map((id) => Number(id.slice(prefix.length + 1)));
    expect(ids.every((id) => id.startsWith(`${prefix}-`))).toBe(true);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(seqs[0]).toBeGreaterThan(Number(lastSeq));
    expect(seen.at(-1)).toMatchObject({ topic: 'generation', event: 'error', requestId: 'crash-1', error: { code: 'JOB_INTERRUPTED' } });

    // Writes the crash cut short leave no temp file once the restarted studio has swept (it does so at start).
    const dirs = [join(home, 'generated'), join(home, 'generated', '.thumbs')];
    await vi.waitFor(() => expect(dirs.flatMap((dir) => readdirSync(dir).filter((name) => name.endsWith('.tmp')))).toEqual([]), {
      timeout: 10_000,
      interval: 50,
    });
  }, 60_000);
});
