import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FlowWorkflow } from '../../src/studio/api/flow.js';
import { openPgDatabase, type PgDatabase } from '../../src/studio/store/pg/database.js';
import { pgStudioStore, type PgStudioStore } from '../../src/studio/store/pg/pg-store.js';
import { SAMPLE_WORKFLOW } from '../../src/demo/sample-workflow.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { describeAgentRepositoryContract } from './contracts/agent-repository.contract.js';
import { describeAssetRepositoryContract } from './contracts/asset-repository.contract.js';
import { describeFlowWorkflowRepositoryContract } from './contracts/flow-workflow-repository.contract.js';
import { describeGraphRepositoriesContract } from './contracts/graph-repositories.contract.js';
import { assetRow, minute, type StoreHarness } from './contracts/harness.js';

// The PostgreSQL repositories run the port contracts the SQLite ones run (test/store/sqlite.test.ts),
// on a real PostgreSQL started for this file, a new database per test. Then two stores on one
// database, each with its own pool (two studios): each sees the other's writes, their concurrent
// compare-and-swaps never lose one, and a workflow one registers reaches the other's synchronous reads.

let postgres: TestPostgres;
beforeAll(async () => {
  postgres = await startPostgres();
}, 60_000);
afterAll(() => postgres?.stop());

/** A store on its own pool (one studio instance). */
async function openStore(url: string): Promise<{ store: PgStudioStore; database: PgDatabase; close(): Promise<void> }> {
  const database = openPgDatabase(url);
  // The repository suites never touch the event log (another implementation, with its own suite).
  const store = pgStudioStore(database, undefined as never);
  await store.ready;
  return {
    store,
    database,
    close: async () => {
      await store.close();
      await database.close();
    },
  };
}

const makeStore = async (): Promise<StoreHarness> => openStore(await postgres.createDatabase());

describeAssetRepositoryContract('PostgreSQL', makeStore);
describeGraphRepositoriesContract('PostgreSQL', makeStore);
describeAgentRepositoryContract('PostgreSQL', makeStore);
describeFlowWorkflowRepositoryContract('PostgreSQL', makeStore);

/** Waits until `check` holds (the state, not a moment): polls on each turn of the event loop, for at most 10 s. */
async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`never came true: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('PostgreSQL repositories, two instances on one database', () => {
  const opened: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((instance) => instance.close()));
  });
  async function twoInstances() {
    const url = await postgres.createDatabase();
    const [one, two] = await Promise.all([openStore(url), openStore(url)]);
    opened.push(one, two);
    return [one.store, two.store] as const;
  }

  it("sees the other's writes", async () => {
    const [one, two] = await twoInstances();
    await one.assets.insert(assetRow('a.png', { prompt: 'Crème brûlée at noon' }));
    expect(await two.assets.find('a.png')).toMatchObject({ filename: 'a.png' });
    // A file name taken on one is refused on the other.
    await expect(two.assets.insert(assetRow('a.png'))).rejects.toMatchObject({ code: '23505' });
    // Search folds accents and case, and matches prefixes, whoever wrote the row.
    expect((await two.assets.search({ text: 'CREME brul', limit: 10 })).map((row) => row.filename)).toEqual(['a.png']);
    expect(await two.assets.search({ text: 'cr', limit: 10 })).toHaveLength(1);
    expect(await two.assets.search({ text: 'c', limit: 10 })).toEqual([]);
    expect(await two.assets.markDeleted('a.png', minute(3))).toBe(true);
    expect((await one.assets.find('a.png'))?.deleted_at).toBe(minute(3));
    expect(await one.assets.listSessionGroups({ limit: 10 })).toEqual([]);
    expect(await one.size()).toBeGreaterThan(0);
    // A word longer than the index's keys (32 characters) still matches by what it begins, and only by that.
    const long = 'pneumonoultramicroscopicsilicovolcanoconiosis';
    await one.assets.insert(assetRow('long.png', { prompt: `a ${long} study` }));
    expect((await two.assets.search({ text: long.slice(0, 40), limit: 10 })).map((row) => row.filename)).toEqual(['long.png']);
    expect(await two.assets.search({ text: `${long.slice(0, 39)}x`, limit: 10 })).toEqual([]);
  });

  it('never loses a compare-and-swap when both replace the same graph at once', async () => {
    const [one, two] = await twoInstances();
    await one.graphSessions.insert({
      id: 's',
      title: 'S',
      version: 1,
      graph: '{"nodes":[],"edges":[]}',
      created_at: minute(0),
      updated_at: minute(0),
    });
    const increments = 20;
    // Each replacement adds a node to what it sees: a lost update would lose a node.
    const add = (store: PgStudioStore, tag: string, index: number) =>
      store.graphSessions.replaceGraph(
        's',
        (row) => {
          const graph = JSON.parse(row.graph) as { nodes: unknown[]; edges: unknown[] };
          return JSON.stringify({ ...graph, nodes: [...graph.nodes, { id: `${tag}${index}` }] });
        },
        minute(1),
      );
    const outcomes = await Promise.all(
      Array.from({ length: increments }, (_, index) => [add(one, 'a', index), add(two, 'b', index)]).flat(),
    );
    expect(outcomes.every((outcome) => outcome.outcome === 'replaced')).toBe(true);
    const row = await two.graphSessions.find('s');
    expect(row?.version).toBe(1 + 2 * increments);
    expect((JSON.parse(row?.graph ?? '{}') as { nodes: unknown[] }).nodes).toHaveLength(2 * increments);
    expect((await one.graphSessions.listLive({ limit: 1 }))[0].node_count).toBe(2 * increments);
    // So do changes of an agent session, each seeing the one before whichever instance makes it.
    await one.agent.insertSession({
      id: 'agent',
      title: 'A',
      settings: '{}',
      web_search: 0,
      style_lock: null,
      subject_lock: null,
      current_image: null,
      previous_images: '[]',
      images: '[]',
      created_at: minute(0),
      updated_at: minute(0),
    });
    const names = Array.from({ length: 10 }, (_, index) => `image-${index}.png`);
    await Promise.all(
      names.map((name, index) =>
        (index % 2 ? one : two).agent.changeSession('agent', (session) => ({
          session: { images: JSON.stringify([...(JSON.parse(session.images) as string[]), name]) },
        })),
      ),
    );
    expect((JSON.parse((await one.agent.findSession('agent'))?.images ?? '[]') as string[]).sort()).toEqual(names.sort());
  });

  it('keeps title groups right when both write the same group at once', async () => {
    const [one, two] = await twoInstances();
    const names = Array.from({ length: 30 }, (_, index) => `g${index}.png`);
    await Promise.all(
      names.map((name, index) =>
        (index % 2 ? one : two).assets.insert(assetRow(name, { session_title: 'Shared', created_at: minute(index) })),
      ),
    );
    // The newest rows go, from both instances at once, while others arrive.
    await Promise.all([
      ...names.slice(20).map((name, index) => (index % 2 ? two : one).assets.markDeleted(name, minute(100))),
      ...['late-1.png', 'late-2.png'].map((name, index) =>
        (index % 2 ? one : two).assets.insert(assetRow(name, { session_title: 'Shared', created_at: minute(5) })),
      ),
    ]);
    expect(await two.assets.listSessionGroups({ limit: 10 })).toEqual([
      { groupKey: 't:Shared', sessionTitle: 'Shared', sessionIds: '[]', unlinked: 1, sessionDeleted: 0, count: 22, latestAt: minute(19) },
    ]);
  });

  it("answers a workflow registered on one from the other's synchronous reads once the notice arrives", async () => {
    const [one, two] = await twoInstances();
    const workflow: FlowWorkflow = {
      id: 'shared',
      label: 'Shared',
      origin: 'http://127.0.0.1:8188',
      mediaKind: 'image',
      graph: JSON.parse(JSON.stringify(SAMPLE_WORKFLOW.graph)) as FlowWorkflow['graph'],
      bind: { ...SAMPLE_WORKFLOW.bind } as FlowWorkflow['bind'],
      params: [],
      createdAt: 1000,
      updatedAt: 1000,
    };
    expect(two.flowWorkflows.list()).toEqual([]);
    expect(await one.flowWorkflows.insert(workflow)).toBe(true);
    // The writer reads its own write at once; the other once the notice has reached it.
    expect(one.flowWorkflows.get('shared')).toEqual(workflow);
    await until(() => two.flowWorkflows.list().some((entry) => entry.id === 'shared'), 'the other instance lists the workflow');
    expect(two.flowWorkflows.get('shared')).toEqual(workflow);
    expect(two.flowWorkflows.summaries().map((summary) => summary.id)).toEqual(['shared']);
    expect(await two.flowWorkflows.insert(workflow)).toBe(false);

    await two.flowWorkflows.replace({ ...workflow, label: 'Renamed', updatedAt: 2000 });
    await until(() => one.flowWorkflows.get('shared')?.label === 'Renamed', 'the replacement reaches the first instance');
    expect(one.flowWorkflows.get('shared')).toMatchObject({ createdAt: 1000, updatedAt: 2000 });
    expect(await one.flowWorkflows.delete('shared')).toBe(true);
    await until(() => two.flowWorkflows.list().length === 0, 'the deletion reaches the other instance');
  });
});
