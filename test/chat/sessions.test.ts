import Database from 'better-sqlite3';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CHAT_MIGRATIONS } from '../../src/chat/store/migrations.js';
import { makeTempHome, recordEvents, startTestChat } from './helpers.js';

interface SessionsBody {
  sessions: Array<{ id: string; title: string; messageCount: number }>;
  currentSessionId: string;
}

describe('sessions', () => {
  it('creates, lists and switches sessions by command, publishing session_switched', async () => {
    const server = await startTestChat();
    const events = await recordEvents(server.url);
    try {
      const first = (await server.getJson<SessionsBody>('/api/sessions')).body;
      expect(first.sessions).toHaveLength(1);
      await server.postLines('/api/message', { prompt: 'Name this session\nsecond line' });

      const created = await server.postLines('/api/command', { text: '/session new Research notes' });
      const session = (created.lines.at(-1)?.data as { session: { id: string; title: string } }).session;
      expect(session.title).toBe('Research notes');
      await events.waitFor('session_switched', (event) => event.event === 'session_switched' && event.sessionId === session.id);
      expect(events.events.find((event) => event.event === 'session_switched')?.topic).toBe('session');

      // A message without sessionId goes to the current session.
      const answer = await server.postLines('/api/message', { prompt: 'in the new one' });
      expect(answer.accepted?.sessionId).toBe(session.id);

      const listed = await server.postLines('/api/command', { text: '/session list' });
      const data = listed.lines.at(-1)?.data as SessionsBody;
      expect(data.currentSessionId).toBe(session.id);
      expect(data.sessions.map((each) => each.id)).toEqual([session.id, first.currentSessionId]);
      expect(data.sessions[1]).toMatchObject({ title: 'Name this session', messageCount: 2 });

      const back = await server.postLines('/api/command', { text: `/session switch ${first.currentSessionId}` });
      expect(back.lines.at(-1)).toMatchObject({ status: 'ok', data: { action: 'switch' } });
      await events.waitFor('switch back', (event) => event.event === 'session_switched' && event.sessionId === first.currentSessionId);
      expect((await server.getJson<SessionsBody>('/api/sessions')).body.currentSessionId).toBe(first.currentSessionId);

      const unknown = await server.postLines('/api/command', { text: '/session switch nope' });
      expect(unknown.status).toBe(404);
      expect((await server.postLines('/api/command', { text: '/session frob' })).status).toBe(400);
    } finally {
      events.close();
      await server.stop();
    }
  });

  it('has REST routes for the UI: create, switch, messages', async () => {
    const server = await startTestChat();
    try {
      const response = await fetch(`${server.url}/api/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'Via REST' }),
      });
      expect(response.status).toBe(201);
      const { session } = (await response.json()) as { session: { id: string } };
      // Created without switching.
      expect((await server.getJson<SessionsBody>('/api/sessions')).body.currentSessionId).not.toBe(session.id);
      const switched = await fetch(`${server.url}/api/sessions/${session.id}/switch`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(switched.status).toBe(200);
      await server.postLines('/api/message', { prompt: 'hello [fake:tool]' });
      const { body } = await server.getJson<{ messages: Array<Record<string, unknown>>; queue: unknown }>(
        `/api/sessions/${session.id}/messages`,
      );
      expect(body.messages).toEqual([
        expect.objectContaining({ role: 'user', content: 'hello [fake:tool]', agent: 'agent-a' }),
        expect.objectContaining({ role: 'assistant', content: 'I listed the directory: 3 files.', status: 'ok' }),
      ]);
      expect(body.queue).toEqual({ pending: 0, active: false });
      expect((await server.getJson(`/api/sessions/missing/messages`)).status).toBe(404);
      expect(
        (
          await fetch(`${server.url}/api/sessions/missing/switch`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: '{}',
          })
        ).status,
      ).toBe(404);
    } finally {
      await server.stop();
    }
  });

  it('persists sessions and messages in SQLite (WAL, migrated) across restarts', async () => {
    const home = makeTempHome();
    try {
      const first = await startTestChat({ home, keepHome: true });
      await first.postLines('/api/message', { prompt: 'remember me' });
      const sessionId = (await first.getJson<SessionsBody>('/api/sessions')).body.currentSessionId;
      await first.stop();

      const db = new Database(join(home, 'chat.db'), { readonly: true });
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.pragma('user_version', { simple: true })).toBe(CHAT_MIGRATIONS.length);
      db.close();

      const second = await startTestChat({ home, keepHome: true });
      const { body } = await second.getJson<{ messages: Array<{ content: string }> }>(`/api/sessions/${sessionId}/messages`);
      expect(body.messages.map((message) => message.content)).toEqual(['remember me', 'Echo: remember me']);
      expect((await second.getJson<SessionsBody>('/api/sessions')).body.currentSessionId).toBe(sessionId);
      await second.stop();
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
