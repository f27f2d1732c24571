import { mkdirSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hangPid, isAlive, makeTempHome, recordEvents, serveChild, startTestChat, waitFor } from './helpers.js';

describe('robustness', () => {
  const cleanup: Array<() => unknown> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  it('a chat server killed with SIGKILL leaves no agent process once it is restarted (and its phase turn is interrupted)', async () => {
    const home = makeTempHome();
    cleanup.push(() => rmSync(home, { recursive: true, force: true }));
    const first = await serveChild(home);
    cleanup.push(() => first.child.kill('SIGKILL'));
    const events = await recordEvents(first.url);
    // The hanging turn is a PABCD phase's: its state must survive the kill too.
    await fetch(`${first.url}/api/orc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'start', task: 'stay [fake:hang]' }),
    });
    const tool = await events.waitFor('the hang tool call', (event) => event.event === 'agent_tool');
    events.close();
    const grandchild = hangPid((tool.input as { command: string }).command);
    const status = (await (await fetch(`${first.url}/api/status`)).json()) as { queues: Array<{ active: { pid: number } }> };
    const agent = status.queues[0].active.pid;
    // Should the test fail, the agents go with it.
    cleanup.push(() => {
      try {
        process.kill(-agent, 'SIGKILL');
      } catch {
        // Gone.
      }
    });

    first.child.kill('SIGKILL');
    await new Promise((resolve) => first.child.once('exit', resolve));
    // Nothing could run at the kill: the agents are still there.
    expect(isAlive(agent)).toBe(true);
    expect(isAlive(grandchild)).toBe(true);

    const second = await serveChild(home);
    cleanup.push(() => second.child.kill('SIGKILL'));
    await waitFor('the leftovers to be reaped', () => !isAlive(agent) && !isAlive(grandchild), 5000);
    expect(second.stderr()).toContain(`killed agent process group ${agent}`);
    const orc = (await (await fetch(`${second.url}/api/orc`)).json()) as { state: { phase: string; status: string } };
    expect(orc.state).toMatchObject({ phase: 'plan', status: 'interrupted' });
  });

  it('a second server started on the same home leaves the running server’s agents alone', async () => {
    const first = await startTestChat({ keepHome: true });
    cleanup.push(() => first.stop());
    const events = await recordEvents(first.url);
    cleanup.push(() => events.close());
    const hanging = first.postLines('/api/message', { prompt: 'mine [fake:hang]' });
    const tool = await events.waitFor('the hang tool call', (event) => event.event === 'agent_tool');
    const grandchild = hangPid((tool.input as { command: string }).command);

    const second = await startTestChat({ home: first.home, keepHome: true });
    cleanup.push(() => second.close());
    expect(second.reaped).toEqual([{ traceId: tool.traceId, pgid: expect.any(Number), outcome: 'owner-running' }]);
    expect(isAlive(grandchild)).toBe(true);
    await first.postLines('/api/command', { text: '/cancel' });
    expect((await hanging).lines.at(-1)).toMatchObject({ status: 'cancelled' });
  });

  it('keeps traces within their retention and size cap, and caps one trace', async () => {
    const home = makeTempHome();
    const traces = join(home, 'traces');
    mkdirSync(traces, { recursive: true });
    const old = join(traces, '20200101T000000000Z-00000001.ndjson');
    writeFileSync(old, '{}\n');
    utimesSync(old, new Date('2020-01-02'), new Date('2020-01-02'));
    for (const [index, id] of ['20260101T000000000Z-00000002', '20260101T000000000Z-00000003'].entries()) {
      writeFileSync(join(traces, `${id}.ndjson`), 'x'.repeat(4000 + index));
    }
    const server = await startTestChat({ home, traceRetentionDays: 30, tracesMaxBytes: 6000, traceMaxBytes: 2000 });
    cleanup.push(() => server.stop());
    // At start: the expired one goes, then the oldest until the rest fit.
    expect(readdirSync(traces).sort()).toEqual(['20260101T000000000Z-00000003.ndjson']);

    const { accepted } = await server.postLines('/api/message', { prompt: 'big [fake:split] ' + 'y'.repeat(3000) });
    const trace = await server.getJson<{ events: Array<{ type: string }> }>(`/api/traces/${accepted?.traceId}`);
    const types = trace.body.events.map((event) => event.type);
    expect(types).toContain('truncated');
    expect(types).not.toContain('text');
    expect(types.at(-1)).toBe('done');
  });

  it('resumes agent-b’s thread and forgets one it no longer has', async () => {
    const home = makeTempHome();
    const codexHome = join(home, 'codex');
    mkdirSync(codexHome);
    const server = await startTestChat({
      home,
      defaultAgent: 'agent-b',
      env: { PATH: process.env.PATH, HOME: process.env.HOME, CODEX_HOME: codexHome },
    });
    cleanup.push(() => server.stop());
    const send = async (prompt: string) => {
      const { lines, accepted } = await server.postLines('/api/message', { prompt });
      const trace = await server.getJson<{ events: Array<Record<string, unknown>> }>(`/api/traces/${accepted?.traceId}`);
      return { done: lines.at(-1), started: trace.body.events.filter((event) => event.type === 'started').map((event) => event.resumed) };
    };
    expect(await send('one')).toEqual({ done: { type: 'done', status: 'ok' }, started: [false] });
    expect(await send('two')).toEqual({ done: { type: 'done', status: 'ok' }, started: [true] });
    rmSync(join(codexHome, 'fake-threads'), { recursive: true, force: true });
    expect(await send('three')).toEqual({ done: { type: 'done', status: 'ok' }, started: [true, false] });
  });
});
