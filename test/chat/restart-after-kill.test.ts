import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqlite } from '../../src/common/sqlite.js';
import { CHAT_MIGRATIONS } from '../../src/chat/store/migrations.js';
import { acceptedFrom, hangPid, isAlive, makeTempHome, recordEvents, serveChild, startTestChat, type AcceptedRun } from './helpers.js';
import { waitFor } from '../manager/helpers.js';

interface Message {
  role: string;
  content: string;
  traceId?: string;
  status?: string;
  reason?: string;
}

/** Sends a prompt and keeps only where it went (the answer's headers); the run goes on without the client. */
async function send(url: string, prompt: string): Promise<AcceptedRun> {
  const response = await fetch(`${url}/api/message`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ prompt }),
  });
  await response.body?.cancel();
  const accepted = acceptedFrom(response.headers);
  if (!accepted) throw new Error(`not accepted: HTTP ${response.status}`);
  return accepted;
}

async function messages(url: string, sessionId: string): Promise<Message[]> {
  const response = await fetch(`${url}/api/sessions/${sessionId}/messages`);
  return ((await response.json()) as { messages: Message[] }).messages;
}

// Issue 33, item 6: a chat SIGKILL must not drop the running turn and its queue without a trace.
describe('a chat server killed with SIGKILL, restarted', () => {
  const cleanup: Array<() => unknown> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  it('ends the hung turn interrupted (saying so) and runs the two messages queued behind it, in order', async () => {
    const home = makeTempHome();
    cleanup.push(() => rmSync(home, { recursive: true, force: true }));
    const first = await serveChild(home);
    cleanup.push(() => first.child.kill('SIGKILL'));
    const events = await recordEvents(first.url);
    cleanup.push(() => events.close());
    const hung = await send(first.url, 'stay [fake:hang]');
    const tool = await events.waitFor('the hang tool call', (event) => event.event === 'agent_tool');
    const grandchild = hangPid((tool.input as { command: string }).command);
    cleanup.push(() => {
      try {
        process.kill(grandchild, 'SIGKILL');
      } catch {
        // Reaped already.
      }
    });
    const queued = [await send(first.url, 'first in line'), await send(first.url, 'second in line')];
    expect(queued.map((run) => run.ahead)).toEqual([1, 2]);
    events.close();

    first.child.kill('SIGKILL');
    await new Promise((resolve) => first.child.once('exit', resolve));

    const second = await serveChild(home);
    cleanup.push(() => second.child.kill('SIGKILL'));
    const sessionId = hung.sessionId;
    const answers = await waitFor('an answer to each of the three', async () => {
      const list = (await messages(second.url, sessionId)).filter((message) => message.role === 'assistant');
      return list.length === 3 ? list : undefined;
    });
    // The turn that was running: interrupted, with a message that says why.
    expect(answers[0]).toMatchObject({ traceId: hung.traceId, status: 'interrupted' });
    expect(answers[0].reason).toContain('the chat server stopped while this run was running');
    // The two waiting behind it ran, in their order.
    expect(answers.slice(1).map((message) => [message.traceId, message.status, message.content])).toEqual([
      [queued[0].traceId, 'ok', 'Echo: first in line'],
      [queued[1].traceId, 'ok', 'Echo: second in line'],
    ]);
    expect(second.stderr()).toContain(`run ${hung.traceId} was running when the server stopped`);
    await waitFor('the hung agent reaped', async () => !isAlive(grandchild), 5000);
    const status = (await (await fetch(`${second.url}/api/status`)).json()) as { queues: unknown[] };
    expect(status.queues).toEqual([]);
  });

  it('gives a status to prompts an earlier version left without an answer', async () => {
    const home = makeTempHome();
    cleanup.push(() => rmSync(home, { recursive: true, force: true }));
    // A database at schema 3 holding one answered prompt and one left unanswered by a kill.
    const db = openSqlite(join(home, 'chat.db'), CHAT_MIGRATIONS.slice(0, 3), 'svc-chat');
    const at = new Date().toISOString();
    db.prepare("INSERT INTO sessions (id, title, created_at, updated_at) VALUES ('s1', 'old', ?, ?)").run(at, at);
    const insert = db.prepare(
      'INSERT INTO messages (id, session_id, role, content, agent, trace_id, status, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    insert.run('m1', 's1', 'user', 'answered', 'agent-a', 'T1', null, at);
    insert.run('m2', 's1', 'assistant', 'Echo: answered', 'agent-a', 'T1', 'ok', at);
    insert.run('m3', 's1', 'user', 'never answered', 'agent-a', 'T2', null, at);
    db.close();

    const server = await startTestChat({ home });
    cleanup.push(() => server.stop());
    expect(server.recovered).toEqual({ interrupted: ['T2'], requeued: [] });
    const list = await messages(server.url, 's1');
    expect(list.map((message) => [message.role, message.traceId, message.status ?? null])).toEqual([
      ['user', 'T1', null],
      ['assistant', 'T1', 'ok'],
      ['user', 'T2', null],
      ['assistant', 'T2', 'interrupted'],
    ]);
  });

  it('leaves the queue of a server still running on the same home alone', async () => {
    const first = await startTestChat({ keepHome: true });
    cleanup.push(() => rmSync(first.home, { recursive: true, force: true }));
    cleanup.push(() => first.close());
    const events = await recordEvents(first.url);
    cleanup.push(() => events.close());
    await send(first.url, 'mine [fake:hang]');
    await events.waitFor('the hang tool call', (event) => event.event === 'agent_tool');
    const waiting = await send(first.url, 'waits for mine');

    const second = await startTestChat({ home: first.home, keepHome: true });
    cleanup.push(() => second.close());
    expect(second.recovered).toEqual({ interrupted: [], requeued: [] });

    // The first server still runs its queue: the waiting message is answered once, by it.
    await first.postLines('/api/command', { text: '/cancel' });
    await events.waitFor('the waiting message answered', (event) => event.event === 'agent_done' && event.traceId === waiting.traceId);
    const answers = (await messages(first.url, waiting.sessionId)).filter(
      (message) => message.traceId === waiting.traceId && message.role === 'assistant',
    );
    expect(answers.map((message) => message.status)).toEqual(['ok']);
  });
});
