import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../helpers/raw-http.js';
import { startTestChat, type TestChatServer } from './helpers.js';

interface TraceList {
  traces: Array<{ traceId: string; bytes: number; sessionId?: string; agent?: string; startedAt: string }>;
}

describe('traces', () => {
  let server: TestChatServer;
  const ids: string[] = [];

  beforeAll(async () => {
    server = await startTestChat();
    for (const prompt of ['one [fake:thinking]', 'two [fake:malformed]', 'three [fake:crash]']) {
      const { accepted } = await server.postLines('/api/message', { prompt });
      ids.push(String(accepted?.traceId));
    }
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('lists traces newest first with their session and agent', async () => {
    const { status, body } = await server.getJson<TraceList>('/api/traces');
    expect(status).toBe(200);
    expect(body.traces.map((trace) => trace.traceId)).toEqual([...ids].reverse());
    expect(body.traces[0]).toMatchObject({ agent: 'agent-a', sessionId: expect.any(String) });
    expect(body.traces[0].bytes).toBeGreaterThan(0);
    expect((await server.getJson<TraceList>('/api/traces?limit=1')).body.traces).toHaveLength(1);
    expect((await server.getJson('/api/traces?limit=0')).status).toBe(400);
  });

  it('reads one trace: every event with ts and traceId, including skipped lines and the exit', async () => {
    const { body } = await server.getJson<{ events: Array<Record<string, unknown>>; truncated: boolean }>(`/api/traces/${ids[1]}`);
    expect(body.truncated).toBe(false);
    expect(body.events.every((event) => event.traceId === ids[1] && typeof event.ts === 'string')).toBe(true);
    const types = body.events.map((event) => event.type);
    expect(types[0]).toBe('queued');
    expect(types.at(-1)).toBe('done');
    expect(types.filter((type) => type === 'skipped_line')).toHaveLength(4);
    expect(body.events.find((event) => event.type === 'exit')).toMatchObject({ exitCode: 0, lines: { skipped: 3, oversized: 1 } });
    const thinking = (await server.getJson<{ events: Array<Record<string, unknown>> }>(`/api/traces/${ids[0]}`)).body.events;
    expect(thinking.find((event) => event.type === 'thinking')).toMatchObject({ content: expect.any(String) });
    const crashed = (await server.getJson<{ events: Array<Record<string, unknown>> }>(`/api/traces/${ids[2]}`)).body.events;
    expect(crashed.at(-1)).toMatchObject({ type: 'done', status: 'crashed' });
  });

  it('keeps every complete line when the last one is truncated (a crash mid-write)', async () => {
    const file = join(server.home, 'traces', `${ids[0]}.ndjson`);
    const complete = readFileSync(file, 'utf8').trimEnd().split('\n').length;
    appendFileSync(file, '{"ts":"2026-01-01T00:00:00.000Z","traceId":"x","type":"te');
    const { body } = await server.getJson<{ events: unknown[]; truncated: boolean; invalidLines: number }>(`/api/traces/${ids[0]}`);
    expect(body.truncated).toBe(true);
    expect(body.events).toHaveLength(complete);
    expect(body.invalidLines).toBe(0);
  });

  it('validates trace ids and never reads outside traces/', async () => {
    const bad = await server.getJson<{ error: { code: string } }>('/api/traces/not-a-trace');
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('INVALID_FILENAME');
    for (const path of ['/api/traces/..%2F..%2Fchat.db', '/api/traces/%2e%2e%2fconfig', `/api/traces/${ids[0]}%00`]) {
      const response = await rawRequest(server.url, { path });
      expect(response.status).toBe(400);
    }
    const missing = await server.getJson<{ error: { code: string } }>('/api/traces/20200101T000000000Z-00000000');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('NOT_FOUND');
  });
});
