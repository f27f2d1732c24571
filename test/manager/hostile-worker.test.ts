import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { MANAGER_LIMITS } from '../../src/manager/limits.js';
import type { InstanceDetail } from '../../src/manager/views.js';
import { startTestManager, stoppedAfterEach, waitFor, type TestManager } from './helpers.js';
import { endless, events, json, startStandInWorker, type Handler, type StandInWorker } from './stand-in-worker.js';

const CAP = MANAGER_LIMITS.workerReadMaxBytes;
/** What a cut stream may still have written: the cap plus the sockets' buffers on loopback. */
const WRITTEN_AT_MOST = 16 * 1024 * 1024;
const huge = (size: number) => 'x'.repeat(size);

const send = (response: ServerResponse, event: Record<string, unknown>) => response.write(`data: ${JSON.stringify(event)}\n\n`);

// Issue 33, item 5: a hostile worker can neither stall nor bloat the manager.
describe('a hostile worker', () => {
  const track = stoppedAfterEach();
  const manager = async (options: Parameters<typeof startTestManager>[0] = {}): Promise<TestManager> =>
    track(await startTestManager(options), (started) => started.stop());
  const worker = async (routes: Record<string, Handler>): Promise<StandInWorker> =>
    track(await startStandInWorker(routes), (started) => started.close());

  it('cannot make the manager read an endless health body', async () => {
    const written: number[] = [];
    const hostile = await worker({
      '/api/health': (_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.write('{"ok":true,"service":"svc-chat","version":"');
        endless(response, huge(64 * 1024), (bytes) => written.push(bytes));
      },
    });
    const boss = await manager();
    const added = await boss.request<{ error: { code: string; message: string } }>('POST', '/api/instances', { url: hostile.url });
    expect(added.status).toBe(502);
    expect(added.body.error.message).toContain(`/api/health: the body is over ${CAP} bytes`);
    await waitFor('the health body cut', async () => written.length === 1);
    expect(written[0]).toBeLessThan(WRITTEN_AT_MOST);
    // A declared length past the cap is refused before anything is read.
    const declared = await worker({
      '/api/health': (_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(400 * 1024 * 1024) });
        response.write('{');
      },
    });
    expect((await boss.request('POST', '/api/instances', { url: declared.url })).status).toBe(502);
  });

  it('cannot make the manager keep an endless event line: the stream is dropped and retried', async () => {
    const written: number[] = [];
    const hostile = await worker({
      '/api/events': events((response) => {
        response.write('data: {"topic":"chat","event":"message","content":"');
        endless(response, huge(64 * 1024), (bytes) => written.push(bytes));
      }),
    });
    const boss = await manager({ workers: [hostile.url] });
    await waitFor('the line cut', async () => written.length >= 1);
    expect(written[0]).toBeLessThan(WRITTEN_AT_MOST);
    const [instance] = await boss.instances_();
    expect(instance.lastError).toBe(`an event stream line is over ${CAP} bytes`);
    // Cut, not given up: the stream is opened again.
    await waitFor('a second attempt', async () => hostile.requests.filter((request) => request.url === '/api/events').length >= 2);
  });

  it('is not followed through a redirect, on its events or its health', async () => {
    const target = await worker({});
    const hostile = await worker({
      '/api/events': (_request, response) => response.writeHead(302, { location: `${target.url}/api/events` }).end(),
    });
    const boss = await manager({ workers: [hostile.url] });
    await waitFor('the redirect refused', async () => (await boss.instances_())[0]?.lastError?.includes('redirect') === true);
    expect((await boss.instances_())[0].lastError).toBe('/api/events answered a redirect (HTTP 302): redirects are not followed');
    const redirectsHealth = await worker({
      '/api/health': (_request, response) => response.writeHead(307, { location: `${target.url}/api/health` }).end(),
    });
    const added = await boss.request<{ error: { message: string } }>('POST', '/api/instances', { url: redirectsHealth.url });
    expect(added.status).toBe(502);
    expect(added.body.error.message).toContain('redirects are not followed');
    expect(target.requests).toEqual([]);
  });

  it('cannot bloat the cache with session ids and long strings, and the summary stays exact', async () => {
    const sessions = MANAGER_LIMITS.sessionsMax * 4;
    // Long, yet every event stays within the line cap (which the test before covers).
    const long = huge(400 * 1024);
    // Its state read agrees with its events (the last sessions wait; the same goal and orchestration, as long as a
    // body may be), whichever the manager applies last.
    const waiting = Array.from({ length: MANAGER_LIMITS.sessionsMax }, (_, index) => ({
      sessionId: `s-${sessions - MANAGER_LIMITS.sessionsMax + index}`,
      pending: 1,
      active: null,
    }));
    const longish = huge(8 * 1024);
    const status = {
      queues: waiting,
      goal: { goalId: 'g-1', objective: longish, status: longish, autoStopped: longish },
      orc: { phase: longish, status: longish, task: longish },
    };
    const hostile = await worker({
      '/api/health': (_request, response) => json(response, { ok: true, service: 'svc-chat', version: long }),
      '/api/status': (_request, response) => json(response, status),
      '/api/sessions': (_request, response) => json(response, { sessions: [{ id: long, title: long }] }),
      '/api/events': events((response) => {
        for (let index = 0; index < sessions; index += 1)
          send(response, { topic: 'queue', event: 'queue_update', sessionId: `s-${index}`, pending: 1, active: false });
        // Ids past the field cap are ignored; other strings are cut.
        send(response, { topic: 'session', event: 'session_switched', sessionId: long });
        send(response, { topic: 'chat', event: 'message', id: 'm-long', messageId: 'm-long', sessionId: 's-1', role: long, content: long });
        send(response, { topic: 'goal', event: 'goal_update', goal: { goalId: 'g-1', objective: long, status: long, autoStopped: long } });
        send(response, { topic: 'orc', event: 'orc_state', phase: long, status: long, task: long });
        send(response, { topic: long, event: long, reason: long });
        send(response, {
          topic: 'chat',
          event: 'message',
          id: 'm-last',
          sessionId: `s-${sessions - 1}`,
          role: 'assistant',
          content: 'the last one',
        });
      }),
    });
    const boss = await manager({ workers: [hostile.url] });
    const summary = await boss.waitForInstance('the last event', (instance) => instance.latestMessage?.content === 'the last one');
    expect(summary.sessionCount).toBe(MANAGER_LIMITS.sessionsMax);
    // Every kept session waits (pending 1): the worker-wide state is still right.
    expect(summary.agentState).toBe('waiting');
    expect(summary.goal?.objective.length).toBe(MANAGER_LIMITS.messagePreviewChars);
    expect(summary.goal?.status.length).toBe(MANAGER_LIMITS.workerFieldMaxChars);
    expect(summary.orc.task?.length).toBe(MANAGER_LIMITS.messagePreviewChars);
    expect(summary.currentSessionId).toBeNull();

    const list = await fetch(`${boss.url}/api/instances`).then((response) => response.text());
    expect(list.length).toBeLessThan(16 * 1024);
    const detail = (await boss.request<{ instance: InstanceDetail }>('GET', `/api/instances/${summary.id}`)).body.instance;
    expect(detail.sessions).toHaveLength(MANAGER_LIMITS.sessionsMax);
    // The least recently active went first.
    expect(detail.sessions.some((session) => session.sessionId === 's-0')).toBe(false);
    expect(detail.sessions.at(-1)?.sessionId).toBe(`s-${sessions - 1}`);
    const recent = (
      await boss.request<{ events: Array<{ event: string; topic: string; summary: string }> }>(
        'GET',
        `/api/instances/${summary.id}/events?limit=5`,
      )
    ).body.events;
    for (const event of recent) {
      expect(event.event.length).toBeLessThanOrEqual(MANAGER_LIMITS.workerFieldMaxChars);
      expect(event.topic.length).toBeLessThanOrEqual(MANAGER_LIMITS.workerFieldMaxChars);
      expect(event.summary.length).toBeLessThanOrEqual(MANAGER_LIMITS.workerFieldMaxChars);
    }
    // The state read asked only for the recent sessions, and about no id it would not keep.
    expect(hostile.requests.some((request) => request.url === `/api/sessions?limit=${MANAGER_LIMITS.snapshotSessionsMax}`)).toBe(true);
    expect(hostile.requests.some((request) => request.url.startsWith('/api/sessions/'))).toBe(false);
    await waitFor('the health poll', async () => (await boss.instances_())[0].version !== undefined);
    expect((await boss.instances_())[0].version?.length).toBe(MANAGER_LIMITS.workerFieldMaxChars);
  });
});
