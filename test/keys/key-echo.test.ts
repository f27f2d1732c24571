import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { format } from 'node:util';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readSse } from '../../src/common/events/client.js';
import { startTestStudio, type TestStudio } from '../helpers/studio.js';
import { SHAPES, SPELLINGS, startEchoVendor, type EchoVendor, type Shape, type Spelling } from './echo-vendor.js';

// Issue 33, item 1: a vendor that echoes the key in its error code, type and
// message, in every spelling, against the real studio over HTTP. The key
// reaches no answer, no job record, no event (live or replayed), no row, no
// file under the studio's home and no log line.

// Keys with characters that URL-encoding and base64 change, and no credential shape the generic patterns would catch.
const KEYS = { api: 'omni.Key/Echo+Probe=7Qx-2c91', 'beta-api': 'beta.Key/Echo+Probe=Zk4-81df' } as const;
type Lane = keyof typeof KEYS;

/** The spellings of a lane's key found in `text` (case ignored; base64 without its padding). */
function leaks(text: string, lane: Lane): string[] {
  const lower = text.toLowerCase();
  return Object.entries(SPELLINGS)
    .filter(([, spell]) => lower.includes(spell(KEYS[lane]).replace(/=+$/, '').toLowerCase()))
    .map(([spelling]) => spelling);
}

const everyLeak = (text: string): string[] => [...leaks(text, 'api'), ...leaks(text, 'beta-api')];

interface Case {
  readonly lane: Lane;
  readonly spelling: Spelling;
  readonly shape: Shape;
  readonly requestId: string;
}

const spellings = Object.keys(SPELLINGS) as Spelling[];
const CASES: Case[] = [
  ...spellings.flatMap((spelling) => SHAPES.map((shape) => ({ lane: 'api' as const, spelling, shape }))),
  ...spellings.map((spelling) => ({ lane: 'beta-api' as const, spelling, shape: 'http' as const })),
].map((echo) => ({ ...echo, requestId: `echo-${echo.lane}-${echo.spelling}-${echo.shape}` }));

let vendor: EchoVendor;
let studio: TestStudio;
const logs: string[] = [];
const live: string[] = [];
const following = new AbortController();

/** Every event frame of GET /api/events (data lines), until `enough` says so. */
async function readEvents(response: Response, into: string[], enough: () => boolean): Promise<void> {
  for await (const message of readSse(response.body as ReadableStream<Uint8Array>)) {
    into.push(message.data);
    if (enough()) return;
  }
}

const errorEventsOf = (frames: readonly string[]) =>
  frames.map((frame) => JSON.parse(frame) as { event: string; requestId?: string }).filter((event) => event.event === 'error');

beforeAll(async () => {
  // Whatever the studio writes to its streams or the console, in this process, is its log (kept here, not printed).
  for (const stream of [process.stdout, process.stderr]) {
    vi.spyOn(stream, 'write').mockImplementation(((chunk: unknown) => logs.push(String(chunk)) > 0) as typeof stream.write);
  }
  for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const)
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void logs.push(format(...args)));

  vendor = await startEchoVendor();
  studio = await startTestStudio({
    env: { OMNI_API_KEY: KEYS.api, BETA_API_KEY: KEYS['beta-api'] },
    upstreams: { api: vendor.url, 'beta-api': vendor.url },
    logger: true,
  });
  const events = await studio.request('/api/events', { headers: { accept: 'text/event-stream' }, signal: following.signal });
  void readEvents(events, live, () => false).catch(() => {});
});

afterAll(async () => {
  following.abort();
  await studio?.stop();
  await vendor?.close();
  vi.restoreAllMocks();
});

describe('a vendor that echoes the key', () => {
  it.each(CASES)(
    '$lane, $spelling in the code, type and message ($shape): not in the answer nor the job record',
    async ({ lane, spelling, shape, requestId }) => {
      const response = await studio.request('/api/generate', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: `a fox [echo:${spelling}] [shape:${shape}]`, provider: lane, requestId }),
      });
      const answer = await response.text();
      expect(response.status).toBeGreaterThanOrEqual(400);
      const { error } = JSON.parse(answer) as { error: { code: string; details?: Record<string, unknown> } };
      // The vendor's words arrive, masked; a "code" that was text is text.
      expect(error.details?.upstreamMessage).toContain('[redacted]');
      expect(error.details?.upstreamCode).toBeUndefined();
      expect(error.details?.upstreamType).toBeUndefined();
      expect(leaks(answer, lane)).toEqual([]);

      const record = await studio.request(`/api/jobs/${requestId}`);
      expect(record.status).toBe(200);
      const recordText = await record.text();
      expect(JSON.parse(recordText)).toMatchObject({ state: 'failed', error: { code: error.code } });
      expect(leaks(recordText, lane)).toEqual([]);
    },
  );

  it('nor in an event (live or replayed), the jobs table, a file under the studio home, or a log line', async () => {
    const requestIds = CASES.map((echo) => echo.requestId);
    const allFailed = (frames: readonly string[]) =>
      requestIds.every((id) => errorEventsOf(frames).some((event) => event.requestId === id));
    await vi.waitFor(() => expect(allFailed(live)).toBe(true));
    expect(everyLeak(live.join('\n'))).toEqual([]);

    // A listener that connects later gets the replay buffer.
    const replayed: string[] = [];
    const replay = new AbortController();
    const response = await studio.request('/api/events?lastEventId=0', { headers: { accept: 'text/event-stream' }, signal: replay.signal });
    await readEvents(response, replayed, () => allFailed(replayed));
    replay.abort();
    expect(everyLeak(replayed.join('\n'))).toEqual([]);

    const database = new Database(studio.ctx.paths.databaseFile, { readonly: true, fileMustExist: true });
    try {
      const rows = database.prepare('SELECT * FROM jobs').all() as Array<{ id: string; error: string | null }>;
      expect(rows.filter((row) => requestIds.includes(row.id) && row.error !== null)).toHaveLength(requestIds.length);
      expect(everyLeak(JSON.stringify(rows))).toEqual([]);
    } finally {
      database.close();
    }
    // The database, its WAL, config and anything else the studio wrote.
    const files = readdirSync(studio.home, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
    expect(files.length).toBeGreaterThan(0);
    for (const file of files)
      expect({ file: file.name, leaks: everyLeak(readFileSync(join(file.parentPath, file.name)).toString('latin1')) }).toEqual({
        file: file.name,
        leaks: [],
      });

    // The request log ran (logger: true), and holds no spelling of a key.
    expect(logs.join('\n')).toContain('/api/generate');
    expect(everyLeak(logs.join('\n'))).toEqual([]);
  });
});
