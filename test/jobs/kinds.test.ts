import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqlite } from '../../src/common/sqlite.js';
import { imageJobRequest } from '../../src/studio/api/index.js';
import { openDatabase } from '../../src/studio/store/database.js';
import { MIGRATIONS } from '../../src/studio/store/migrations.js';

// Typed job kinds: a job stored by schema 9 (a slot's model as the id asked
// for) reads as its kind's request after migration 10, with the model that ran.

const home = mkdtempSync(join(tmpdir(), 'svc-kinds-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

const slot = (model: string) => ({ requestId: 'old-1', lane: 'api', model, fields: { prompt: 'an old kite', format: 'png', options: {} } });

describe('typed job kinds', () => {
  it('migrates a schema-9 image job: each slot keeps the model asked for and gains the one that ran', () => {
    const file = join(home, 'studio.db');
    const old = openSqlite(file, MIGRATIONS.slice(0, 9), 'svc');
    const insert = old.prepare("INSERT INTO jobs (id, kind, lane, model, state, request, created_at, updated_at) VALUES (?, ?, ?, ?, 'queued', ?, '2026-11-25T00:00:00.000Z', '2026-11-25T00:00:00.000Z')");
    insert.run('old-1', 'generate', 'api', 'lang-6-luna', JSON.stringify({ operation: 'generate', slots: [slot('lang-5.6-luna')], inputs: { references: [] } }));
    insert.run('old-2', 'multimode', null, null, JSON.stringify({ operation: 'generate', slots: [slot('lang-5.6-luna'), slot('lang-6-sol')], inputs: { references: [] } }));
    old.close();

    const db = openDatabase(file);
    const request = (id: string) => imageJobRequest.parse(JSON.parse((db.prepare('SELECT request FROM jobs WHERE id = ?').get(id) as { request: string }).request));
    expect(request('old-1').slots[0].model).toEqual({ requested: 'lang-5.6-luna', id: 'lang-6-luna', upstreamId: 'lang-6-luna' });
    expect(request('old-1').slots[0].fields.prompt).toBe('an old kite');
    expect(request('old-2').slots.map((each) => each.model)).toEqual([
      { requested: 'lang-5.6-luna', id: 'lang-5.6-luna', upstreamId: 'lang-5.6-luna' },
      { requested: 'lang-6-sol', id: 'lang-6-sol', upstreamId: 'lang-6-sol' },
    ]);
    db.close();
  });
});
