import { CHAT_LIMITS } from '../../src/chat/limits.js';
import Database from 'better-sqlite3';
import { mkdirSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hangPid, isAlive, recordEvents, startTestChat, waitFor, type EventRecorder, type TestChatServer } from './helpers.js';

type Line = Record<string, unknown>;
type TraceEvents = { events: Array<Record<string, unknown>> };

/** Gone for good: not even a zombie (its parent, this process, reaped it). */
function reaped(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
}

/** Kills a process we made a fake agent start (a holder in its own process group). */
function killPid(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

describe('how runs end', () => {
  const cleanup: Array<() => unknown> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  async function start(options: Parameters<typeof startTestChat>[0] = {}): Promise<{ server: TestChatServer; events: EventRecorder }> {
    const server = await startTestChat(options);
    cleanup.push(() => server.stop());
    const events = await recordEvents(server.url);
    cleanup.push(() => events.close());
    return { server, events };
  }

  /** Makes the server's own database refuse assistant messages, as a full disk would (a real SQLite failure). */
  function refuseAnswers(server: TestChatServer): () => void {
    const db = new Database(join(server.home, 'chat.db'));
    db.exec(
      "CREATE TRIGGER refuse_answers BEFORE INSERT ON messages WHEN NEW.role = 'assistant' BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END",
    );
    const allow = () => {
      if (!db.open) return;
      db.exec('DROP TRIGGER IF EXISTS refuse_answers');
      db.close();
    };
    cleanup.push(allow);
    return allow;
  }

  it('ends a run whose answer cannot be saved with done error, publishes it, and keeps serving', async () => {
    const { server, events } = await start();
    const allow = refuseAnswers(server);
    const { lines, accepted } = await server.postLines('/api/message', { prompt: 'hello' });
    expect(lines.at(-1)).toEqual({
      type: 'done',
      status: 'error',
      reason: 'answer not saved (database or disk is full); the run ended ok',
    });
    const traceId = accepted?.traceId;
    await events.waitFor(
      'the published done',
      (event) => event.event === 'agent_done' && event.traceId === traceId && event.status === 'error',
    );
    const trace = await server.getJson<TraceEvents>(`/api/traces/${String(traceId)}`);
    expect(trace.body.events.at(-1)).toMatchObject({ type: 'done', status: 'error' });

    allow();
    const again = await server.postLines('/api/message', { prompt: 'again' });
    expect(again.lines.at(-1)).toEqual({ type: 'done', status: 'ok' });
  });

  it('still ends every stream at shutdown when no answer can be saved', async () => {
    const { server, events } = await start();
    const send = (prompt: string) => server.postLines('/api/message', { prompt });
    const hanging = send('stuck [fake:hang]');
    await events.waitFor('the hang tool call', (event) => event.event === 'agent_tool');
    const waiting = [send('waiting one'), send('waiting two')];
    await events.waitFor('two waiting', (event) => event.event === 'queue_update' && event.pending === 2);
    refuseAnswers(server);

    await server.close();
    for (const response of await Promise.all([hanging, ...waiting])) {
      expect(response.lines.at(-1)).toMatchObject({
        type: 'done',
        status: 'error',
        reason: expect.stringMatching(/^answer not saved .*the run ended cancelled: the server is shutting down$/),
      });
    }
  });

  it('ends a run whose program exited while a process in another group keeps its stdout open', async () => {
    const { server, events } = await start();
    const { lines } = await server.postLines('/api/message', { prompt: 'background [fake:detached]' });
    const tool = lines.find((line: Line) => line.type === 'tool') as { input: { command: string } };
    const holder = hangPid(tool.input.command);
    cleanup.push(() => killPid(holder));
    expect(lines.at(-1)).toEqual({ type: 'done', status: 'ok' });
    // The holder is out of the run's process group: still there, and the run ended anyway.
    expect(isAlive(holder)).toBe(true);
    await events.waitFor('the idle queue', (event) => event.event === 'queue_update' && event.active === false);
    expect((await server.postLines('/api/message', { prompt: 'next' })).lines.at(-1)).toEqual({ type: 'done', status: 'ok' });
  });

  it('/cancel after the program exited says so, and ends the wait for its stdout at once', async () => {
    // A long drain: without /cancel the run would wait it out.
    const { server, events } = await start({ exitDrainMs: 60_000 });
    const run = server.postLines('/api/message', { prompt: 'background [fake:detached]' });
    const tool = await events.waitFor('the holder', (event) => event.event === 'agent_tool');
    const holder = hangPid((tool.input as { command: string }).command);
    cleanup.push(() => killPid(holder));
    const status = await server.getJson<{ queues: Array<{ active: { pid: number } | null }> }>('/api/status');
    const agentPid = status.body.queues[0].active?.pid as number;
    await waitFor('the agent program to exit', () => reaped(agentPid));

    const cancel = await server.postLines('/api/command', { text: '/cancel' });
    expect(cancel.lines.at(-1)).toMatchObject({ data: { cancelled: false, traceId: tool.traceId } });
    expect(cancel.lines[0]).toEqual({ type: 'text', content: expect.stringContaining('already ending') });
    // Its own outcome stands.
    expect((await run).lines.at(-1)).toEqual({ type: 'done', status: 'ok' });
  });

  it('holds a trace file open only for running runs, not for waiting ones', async () => {
    const { server, events } = await start();
    const hanging = server.postLines('/api/message', { prompt: 'busy [fake:hang]' });
    await events.waitFor('the hang tool call', (event) => event.event === 'agent_tool');
    const waiting = [1, 2, 3].map((index) => server.postLines('/api/message', { prompt: `waiting ${index}` }));
    await events.waitFor('three waiting', (event) => event.event === 'queue_update' && event.pending === 3);

    const tracesDir = join(server.home, 'traces');
    const open = readdirSync('/proc/self/fd').filter((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`).startsWith(tracesDir);
      } catch {
        return false;
      }
    });
    expect(open).toHaveLength(1);
    await server.postLines('/api/command', { text: '/cancel' });
    expect((await hanging).lines.at(-1)).toMatchObject({ status: 'cancelled' });
    for (const response of await Promise.all(waiting)) expect(response.lines.at(-1)).toEqual({ type: 'done', status: 'ok' });
  });

  it('runs and saves a prompt when its trace cannot be written (tracing stops, the run does not)', async () => {
    const { server } = await start();
    // Stand-in for a disk error: the traces directory cannot be used.
    rmSync(join(server.home, 'traces'), { recursive: true, force: true });
    writeFileSync(join(server.home, 'traces'), 'not a directory');
    const { lines, accepted } = await server.postLines('/api/message', { prompt: 'untraced' });
    expect(lines.at(-1)).toEqual({ type: 'done', status: 'ok' });
    const sessionId = String(accepted?.sessionId);
    const { body } = await server.getJson<{ messages: Array<{ role: string; content: string; status?: string }> }>(
      `/api/sessions/${sessionId}/messages`,
    );
    expect(body.messages.map((message) => [message.role, message.content])).toEqual([
      ['user', 'untraced'],
      ['assistant', 'Echo: untraced'],
    ]);
  });

  it('forgets a conversation id agent-a no longer has and runs the prompt as a new conversation', async () => {
    const home = join(tmpdir(), `svc-chat-claude-${process.pid}-${Date.now()}`);
    mkdirSync(home, { recursive: true });
    cleanup.push(() => rmSync(home, { recursive: true, force: true }));
    const { server } = await start({ env: { PATH: process.env.PATH, HOME: process.env.HOME, CLAUDE_CONFIG_DIR: home } });
    const send = async (prompt: string) => {
      const { lines, accepted } = await server.postLines('/api/message', { prompt });
      const trace = await server.getJson<TraceEvents>(`/api/traces/${String(accepted?.traceId)}`);
      return { done: lines.at(-1), trace: trace.body.events };
    };
    const started = (events: TraceEvents['events']) => events.filter((event) => event.type === 'started').map((event) => event.resumed);

    expect((await send('one')).done).toEqual({ type: 'done', status: 'ok' });
    const second = await send('two');
    expect(started(second.trace)).toEqual([true]);

    // The program's stored conversations disappear (cleaned up, another machine).
    rmSync(join(home, 'fake-conversations'), { recursive: true, force: true });
    const third = await send('three');
    expect(third.done).toEqual({ type: 'done', status: 'ok' });
    expect(started(third.trace)).toEqual([true, false]);
    expect(third.trace.find((event) => event.type === 'resume_failed')).toMatchObject({
      status: 'crashed',
      reason: expect.stringContaining('No conversation found'),
    });

    // The new conversation is the one resumed from now on.
    const fourth = await send('four');
    expect(fourth.done).toEqual({ type: 'done', status: 'ok' });
    expect(started(fourth.trace)).toEqual([true]);
  });

  it('cuts a message stream whose client stops reading; the run goes on and its answer is saved', async () => {
    const { server, events } = await start({ streamMaxBufferedBytes: 64 * 1024 });
    const target = new URL(server.url);
    const body = JSON.stringify({ prompt: 'a lot [fake:flood]' });
    const socket = connect(Number(target.port), target.hostname);
    cleanup.push(() => socket.destroy());
    // Not read from until the run is over: the server's writes pile up.
    socket.pause();
    socket.write(
      `POST /api/message HTTP/1.1\r\nHost: ${target.host}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    const done = await events.waitFor('the run to end', (event) => event.event === 'agent_done', 20_000);
    expect(done.status).toBe('ok');
    const sessionId = String(done.sessionId);

    const received: Buffer[] = [];
    const ended = new Promise<void>((resolve) => {
      socket.on('close', () => resolve());
      socket.on('error', () => resolve());
    });
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.resume();
    await ended;
    const text = Buffer.concat(received).toString('utf8');
    // The headers name the run; the stream holds only the spec's line types.
    expect(text.toLowerCase()).toContain('x-chat-trace-id: ');
    expect(text).not.toContain('"type":"accepted"');
    // Cut before the end: the done never reached this client.
    expect(text).not.toContain('"type":"done"');

    const { body: history } = await server.getJson<{
      messages: Array<{ role: string; content: string; status?: string; traceId: string }>;
    }>(`/api/sessions/${sessionId}/messages`);
    const answer = history.messages.at(-1);
    expect(answer).toMatchObject({ role: 'assistant', status: 'ok' });
    // Stored up to the cap, with a note naming the trace that keeps all 8 MiB.
    const cap = CHAT_LIMITS.messageStoredMaxBytes;
    expect(Buffer.byteLength(answer?.content ?? '')).toBeGreaterThan(cap);
    expect(Buffer.byteLength(answer?.content ?? '')).toBeLessThan(cap + 200);
    const note = new RegExp(`\\[answer cut at ${cap} of (\\d+) bytes; the whole output is in trace ${answer?.traceId}\\]$`).exec(
      answer?.content ?? '',
    );
    expect(note).not.toBeNull();
    const total = Number(note?.[1]);
    expect(total).toBeGreaterThan(8 * 1024 * 1024);
    // The trace keeps every byte of it.
    const { body: trace } = await server.getJson<{ events: Array<{ type: string; content?: string }> }>(`/api/traces/${answer?.traceId}`);
    const traced = trace.events
      .filter((event) => event.type === 'text')
      .reduce((sum, event) => sum + Buffer.byteLength(event.content ?? ''), 0);
    expect(traced).toBe(total);
  });
});
