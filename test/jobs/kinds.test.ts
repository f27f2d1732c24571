import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqlite } from '../../src/common/sqlite.js';
import { imageJobRequest, jobRecord, type GenerationResult } from '../../src/studio/api/index.js';
import { createStudioContext } from '../../src/studio/context.js';
import type { JobHandler } from '../../src/studio/jobs/handlers.js';
import { Jobs } from '../../src/studio/jobs/jobs.js';
import { openDatabase } from '../../src/studio/store/database.js';
import { insertJob, SqliteJobStore } from '../../src/studio/store/jobs.js';
import { MIGRATIONS } from '../../src/studio/store/migrations.js';
import { embeddedDatabase } from '../../src/studio/store/open.js';

// Typed job kinds: a job stored by schema 9 (a slot's model as the id asked
// for) reads as its kind's request after migration 10, with the model that ran;
// a queued job whose stored request its kind cannot read ends failed, and the
// queue goes on behind it.

const home = mkdtempSync(join(tmpdir(), 'svc-kinds-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

const slot = (model: string) => ({ requestId: 'old-1', lane: 'api', model, fields: { prompt: 'an old kite', format: 'png', options: {} } });

describe('typed job kinds', () => {
  it('migrates a schema-9 image job: each slot keeps the model asked for and gains the one that ran', () => {
    const file = join(home, 'studio.db');
    const old = openSqlite(file, MIGRATIONS.slice(0, 9), 'svc');
    const insert = old.prepare(
      "INSERT INTO jobs (id, kind, lane, model, state, request, created_at, updated_at) VALUES (?, ?, ?, ?, 'queued', ?, '2026-11-25T00:00:00.000Z', '2026-11-25T00:00:00.000Z')",
    );
    insert.run(
      'old-1',
      'generate',
      'api',
      'lang-6-luna',
      JSON.stringify({ operation: 'generate', slots: [slot('lang-5.6-luna')], inputs: { references: [] } }),
    );
    insert.run(
      'old-2',
      'multimode',
      null,
      null,
      JSON.stringify({ operation: 'generate', slots: [slot('lang-5.6-luna'), slot('lang-6-sol')], inputs: { references: [] } }),
    );
    old.close();

    const db = openDatabase(file);
    const request = (id: string) =>
      imageJobRequest.parse(JSON.parse((db.prepare('SELECT request FROM jobs WHERE id = ?').get(id) as { request: string }).request));
    expect(request('old-1').slots[0].model).toEqual({ requested: 'lang-5.6-luna', id: 'lang-6-luna', upstreamId: 'lang-6-luna' });
    expect(request('old-1').slots[0].fields.prompt).toBe('an old kite');
    expect(request('old-2').slots.map((each) => each.model)).toEqual([
      { requested: 'lang-5.6-luna', id: 'lang-5.6-luna', upstreamId: 'lang-5.6-luna' },
      { requested: 'lang-6-sol', id: 'lang-6-sol', upstreamId: 'lang-6-sol' },
    ]);
    db.close();
  });
});

describe('a stored job its kind cannot read', () => {
  it('ends failed with its reason, and the job behind it on the same ordering key runs', async () => {
    const studioHome = join(home, 'studio');
    const ctx = await createStudioContext({ env: { SVC_HOME: studioHome, PATH: process.env.PATH } });
    try {
      const ran: string[] = [];
      const handler: JobHandler<'generate'> = {
        canResume: () => false,
        reachesUpstreamAtStart: () => true,
        budgetMs: () => 60_000,
        async run(_ctx, job): Promise<GenerationResult> {
          ran.push(job.requestId);
          return {
            requestId: job.requestId,
            provider: 'api',
            model: 'lang-5.6-luna',
            images: [],
            settings: {},
            timings: { upstreamMs: 0, saveMs: 0, totalMs: 0 },
          };
        },
      };
      const row = (id: string, request: unknown) => ({
        id,
        kind: 'generate',
        lane: 'api',
        model: 'lang-5.6-luna',
        request: JSON.stringify(request),
        created_at: new Date().toISOString(),
        priority: 0,
        ordering_key: 'session-1',
        fingerprint: null,
        attempt: 1,
        retry_of: null,
        pool: 'api',
        pool_limit: null,
        budget_ms: 60_000,
        reaches_at_start: 1,
      });
      insertJob(embeddedDatabase(ctx), row('broken-1', { operation: 'generate', slots: [{ lane: 'api', model: 'lang-5.6-luna' }] }), []);
      insertJob(
        embeddedDatabase(ctx),
        row('fine-1', {
          operation: 'generate',
          slots: [
            {
              ...slot('lang-5.6-luna'),
              requestId: 'fine-1',
              model: { requested: 'lang-5.6-luna', id: 'lang-5.6-luna', upstreamId: 'lang-5.6-luna' },
            },
          ],
          inputs: { references: [] },
        }),
        [],
      );
      const engine = new Jobs(ctx, new SqliteJobStore(embeddedDatabase(ctx)), { generate: handler });
      await engine.recover();
      for (let tries = 0; tries < 100 && (await engine.inflight()).length > 0; tries += 1)
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await engine.inflight()).toEqual([]);
      expect(ran).toEqual(['fine-1']);
      const broken = embeddedDatabase(ctx).prepare("SELECT state, error FROM jobs WHERE id = 'broken-1'").get() as {
        state: string;
        error: string;
      };
      expect(broken.state).toBe('failed');
      expect(JSON.parse(broken.error)).toMatchObject({ code: 'INTERNAL_ERROR', message: expect.stringContaining('cannot be read') });
      expect(jobRecord.parse(await engine.get('fine-1'))).toMatchObject({ kind: 'generate', state: 'succeeded' });
      await engine.stopAll('done', 1000);
    } finally {
      await ctx.close();
    }
  });
});
