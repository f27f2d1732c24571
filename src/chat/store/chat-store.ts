import { randomUUID } from 'node:crypto';
import { CHAT_LIMITS } from '../limits.js';
import type { DoneStatus } from '../agents/types.js';
import type { Automatic, AutomaticOrigin, ChatMessage, ChatSession, MessageRole } from '../contract.js';
import { openChatDatabase, type ChatDatabase } from './database.js';

export type { Automatic, AutomaticOrigin, ChatMessage, ChatSession, MessageRole } from '../contract.js';

export interface NewMessage {
  sessionId: string;
  role: MessageRole;
  content: string;
  agent?: string;
  traceId?: string;
  status?: DoneStatus;
  reason?: string;
  automatic?: Automatic;
}

interface SessionRow {
  id: string;
  title: string;
  created_at: string;
  updated_at: string;
  message_count: number;
}
interface MessageRow {
  id: string;
  session_id: string;
  role: MessageRole;
  content: string;
  agent: string | null;
  trace_id: string | null;
  status: DoneStatus | null;
  reason: string | null;
  created_at: string;
  origin: AutomaticOrigin | null;
  origin_label: string | null;
}

const now = () => new Date().toISOString();

const toSession = (row: SessionRow): ChatSession => ({
  id: row.id,
  title: row.title,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  messageCount: row.message_count,
});

function toMessage(row: MessageRow): ChatMessage {
  const message: ChatMessage = { id: row.id, sessionId: row.session_id, role: row.role, content: row.content, createdAt: row.created_at };
  if (row.agent) message.agent = row.agent;
  if (row.trace_id) message.traceId = row.trace_id;
  if (row.status) message.status = row.status;
  if (row.reason) message.reason = row.reason;
  if (row.origin) message.automatic = { origin: row.origin, label: row.origin_label ?? '' };
  return message;
}

/** A session title from a prompt: its first line, cut. */
export const titleFromPrompt = (prompt: string): string => {
  const line = prompt.trim().split('\n')[0].trim();
  return line.length > CHAT_LIMITS.sessionTitleMaxChars ? `${line.slice(0, CHAT_LIMITS.sessionTitleMaxChars - 1)}…` : line;
};

const SESSION_COLUMNS = `s.id, s.title, s.created_at, s.updated_at, (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id) AS message_count`;

/** Sessions and messages in SQLite (WAL), plus which session is current. */
export class ChatStore {
  /** The open database, shared with the goal, orchestration and process stores. */
  readonly db: ChatDatabase;

  constructor(file: string) {
    this.db = openChatDatabase(file);
  }

  createSession(title = ''): ChatSession {
    const id = randomUUID();
    const at = now();
    this.db
      .prepare('INSERT INTO sessions (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)')
      .run(id, title.slice(0, CHAT_LIMITS.sessionTitleMaxChars), at, at);
    return { id, title, createdAt: at, updatedAt: at, messageCount: 0 };
  }

  getSession(id: string): ChatSession | undefined {
    const row = this.db.prepare(`SELECT ${SESSION_COLUMNS} FROM sessions s WHERE s.id = ?`).get(id) as SessionRow | undefined;
    return row ? toSession(row) : undefined;
  }

  /** Most recently active first; all of them unless a limit is given. */
  listSessions(limit = -1): ChatSession[] {
    return (
      this.db
        .prepare(`SELECT ${SESSION_COLUMNS} FROM sessions s ORDER BY s.updated_at DESC, s.rowid DESC LIMIT ?`)
        .all(limit) as SessionRow[]
    ).map(toSession);
  }

  /** The current session; one is created when there is none (first start, or it was removed). */
  currentSessionId(): string {
    const row = this.db.prepare("SELECT value FROM meta WHERE key = 'current_session'").get() as { value: string } | undefined;
    if (row && this.getSession(row.value)) return row.value;
    const latest = this.listSessions()[0] ?? this.createSession();
    this.setCurrentSession(latest.id);
    return latest.id;
  }

  /** A person's title for the session (an empty one lets its next prompt name it). */
  renameSession(id: string, title: string): void {
    this.db.prepare('UPDATE sessions SET title = ? WHERE id = ?').run(title, id);
  }

  /** Deletes the session with its messages and its agents' conversation ids (ON DELETE CASCADE). */
  deleteSession(id: string): void {
    this.db.prepare('DELETE FROM sessions WHERE id = ?').run(id);
  }

  setCurrentSession(id: string): void {
    this.db
      .prepare("INSERT INTO meta (key, value) VALUES ('current_session', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value")
      .run(id);
  }

  addMessage(input: NewMessage): ChatMessage {
    const id = randomUUID();
    const at = now();
    this.db.transaction(() => {
      this.db
        .prepare(
          'INSERT INTO messages (id, session_id, role, content, agent, trace_id, status, reason, created_at, origin, origin_label) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
        )
        .run(
          id,
          input.sessionId,
          input.role,
          input.content,
          input.agent ?? null,
          input.traceId ?? null,
          input.status ?? null,
          input.reason ?? null,
          at,
          input.automatic?.origin ?? null,
          input.automatic?.label ?? null,
        );
      this.db.prepare('UPDATE sessions SET updated_at = ? WHERE id = ?').run(at, input.sessionId);
      // An automatic prompt does not name the session (its first line is our own instruction).
      if (input.role === 'user' && !input.automatic) {
        this.db.prepare("UPDATE sessions SET title = ? WHERE id = ? AND title = ''").run(titleFromPrompt(input.content), input.sessionId);
      }
    })();
    return toMessage({
      id,
      session_id: input.sessionId,
      role: input.role,
      content: input.content,
      agent: input.agent ?? null,
      trace_id: input.traceId ?? null,
      status: input.status ?? null,
      reason: input.reason ?? null,
      created_at: at,
      origin: input.automatic?.origin ?? null,
      origin_label: input.automatic?.label ?? null,
    });
  }

  /** The last `limit` messages of a session, oldest first. */
  listMessages(sessionId: string, limit: number): ChatMessage[] {
    const rows = this.db
      .prepare('SELECT * FROM (SELECT * FROM messages WHERE session_id = ? ORDER BY seq DESC LIMIT ?) ORDER BY seq ASC')
      .all(sessionId, limit) as MessageRow[];
    return rows.map(toMessage);
  }

  nativeSessionId(sessionId: string, agent: string): string | undefined {
    const row = this.db.prepare('SELECT native_id FROM agent_sessions WHERE session_id = ? AND agent = ?').get(sessionId, agent) as
      { native_id: string } | undefined;
    return row?.native_id;
  }

  setNativeSessionId(sessionId: string, agent: string, nativeId: string): void {
    this.db
      .prepare(
        'INSERT INTO agent_sessions (session_id, agent, native_id, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT (session_id, agent) DO UPDATE SET native_id = excluded.native_id, updated_at = excluded.updated_at',
      )
      .run(sessionId, agent, nativeId, now());
  }

  /** Forgets a program's conversation id (it no longer exists on the program's side). */
  clearNativeSessionId(sessionId: string, agent: string): void {
    this.db.prepare('DELETE FROM agent_sessions WHERE session_id = ? AND agent = ?').run(sessionId, agent);
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
