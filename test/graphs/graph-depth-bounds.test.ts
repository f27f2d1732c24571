import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRAPH_LIMITS } from '../../src/studio/api/sessions.js';
import { startTestStudio, type TestStudio } from '../helpers/studio.js';
import { call, node, type ErrorAnswer } from './helpers.js';

// Issue 45 item 3: a graph nested 1,000 deep was saved, and then SQLite's JSON
// depth limit failed GET /api/sessions for every client, for good. A body is
// held to 64 levels, a graph to GRAPH_LIMITS.maxDepth, and a row that still
// trips SQLite's limit (an older build's) never takes the list down.

let studio: TestStudio;
beforeAll(async () => {
  studio = await startTestStudio();
});
afterAll(async () => {
  await studio?.stop();
});

/** Node data nested `levels` deep. */
const nested = (levels: number): Record<string, unknown> => {
  let value: Record<string, unknown> = { leaf: true };
  for (let level = 0; level < levels; level += 1) value = { inner: value };
  return value;
};

const newSession = async (title: string): Promise<string> => {
  const created = await call<{ id: string }>(studio, 'POST', '/api/sessions', { title });
  expect(created.status).toBe(201);
  return created.body.id;
};

describe('graph depth', () => {
  it('refuses a graph nested 1,000 deep (JSON_TOO_DEEP) and one past its own bound (GRAPH_TOO_LARGE); the list stays 200', async () => {
    const id = await newSession('deep');
    const deep = await call<ErrorAnswer>(
      studio,
      'PUT',
      `/api/sessions/${id}/graph`,
      { nodes: [node('a', 0, 0, nested(1000))], edges: [] },
      { 'if-match': '*' },
    );
    expect(deep.status).toBe(400);
    expect(deep.body.error.code).toBe('JSON_TOO_DEEP');
    const over = await call<ErrorAnswer>(
      studio,
      'PUT',
      `/api/sessions/${id}/graph`,
      { nodes: [node('a', 0, 0, nested(GRAPH_LIMITS.maxDepth))], edges: [] },
      { 'if-match': '*' },
    );
    expect(over.status).toBe(413);
    expect(over.body.error.code).toBe('GRAPH_TOO_LARGE');
    const within = await call(
      studio,
      'PUT',
      `/api/sessions/${id}/graph`,
      { nodes: [node('a', 0, 0, nested(GRAPH_LIMITS.maxDepth - 6))], edges: [] },
      { 'if-match': '*' },
    );
    expect(within.status).toBe(200);
    expect((await call(studio, 'GET', '/api/sessions')).status).toBe(200);
  });

  it('lists every session when a stored graph is past SQLite JSON depth limit (written by an older build)', async () => {
    const good = await newSession('good');
    const bad = await newSession('bad');
    const db = new Database(join(studio.home, 'studio.db'));
    db.prepare('UPDATE sessions SET graph = ? WHERE id = ?').run(
      JSON.stringify({ nodes: [{ id: 'a', position: { x: 0, y: 0 }, data: nested(1000) }], edges: [] }),
      bad,
    );
    db.close();
    const listed = await call<{ sessions: { id: string; nodeCount: number }[] }>(studio, 'GET', '/api/sessions');
    expect(listed.status).toBe(200);
    const ids = listed.body.sessions.map((session) => session.id);
    expect(ids).toContain(good);
    expect(ids).toContain(bad);
    expect(listed.body.sessions.find((session) => session.id === bad)?.nodeCount).toBe(0);
  });
});
