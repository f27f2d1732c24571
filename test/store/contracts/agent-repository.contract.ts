import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentSessionRow } from '../../../src/studio/store/agent.js';
import type { AgentRepository } from '../../../src/studio/store/repositories.js';
import { minute, type MakeStore, type StoreHarness } from './harness.js';

// The AgentRepository contract: Agent Mode sessions and their turns, turns in
// the order they were recorded, conditional turn writes, and a session change
// made from what the session is now, with a turn's fields in the same unit of work.

const sessionRow = (id: string, createdAt: string): AgentSessionRow => ({
  id,
  title: `agent ${id}`,
  settings: '{"provider":"auto"}',
  web_search: 0,
  style_lock: null,
  subject_lock: null,
  current_image: null,
  previous_images: '[]',
  images: '[]',
  created_at: createdAt,
  updated_at: createdAt,
});

const turn = (id: string, sessionId = 's1') => ({
  id,
  session_id: sessionId,
  job_id: id,
  prompt: `prompt ${id}`,
  command: null,
  created_at: minute(1),
});

export function describeAgentRepositoryContract(name: string, makeStore: MakeStore): void {
  describe(`AgentRepository contract: ${name}`, () => {
    let harness: StoreHarness;
    let agent: AgentRepository;
    beforeEach(async () => {
      harness = await makeStore();
      agent = harness.store.agent;
    });
    afterEach(() => harness.close());

    it('answers sessions as inserted, the newest first', async () => {
      await agent.insertSession(sessionRow('s1', minute(1)));
      await agent.insertSession(sessionRow('s2', minute(2)));
      expect(await agent.findSession('s1')).toEqual(sessionRow('s1', minute(1)));
      expect(await agent.findSession('nope')).toBeUndefined();
      expect((await agent.listSessions(10)).map((row) => row.id)).toEqual(['s2', 's1']);
      expect((await agent.listSessions(1)).map((row) => row.id)).toEqual(['s2']);
    });

    it('records a turn once (queued), keeps turns in the order recorded, and counts them by state', async () => {
      await agent.insertSession(sessionRow('s1', minute(1)));
      expect(await agent.insertTurn(turn('t1'))).toBe(true);
      expect(await agent.insertTurn({ ...turn('t1'), prompt: 'another' })).toBe(false);
      expect(await agent.insertTurn(turn('t0'))).toBe(true);
      expect(await agent.findTurn('t1')).toMatchObject({
        ...turn('t1'),
        state: 'queued',
        attempt: 1,
        images: '[]',
        plan: null,
        error: null,
        started_at: null,
        finished_at: null,
      });
      expect(await agent.findTurn('nope')).toBeUndefined();
      expect((await agent.listTurns('s1')).map((row) => row.id)).toEqual(['t1', 't0']);
      expect(await agent.updateTurn('t0', { state: 'running', started_at: minute(2) })).toBe(true);
      expect(await agent.countTurns('s1')).toEqual({ queued: 1, running: 1 });
      expect(await agent.countTurns('other')).toEqual({});
    });

    it('writes a turn only from the states asked for; removes a turn only while queued on its job', async () => {
      await agent.insertSession(sessionRow('s1', minute(1)));
      await agent.insertTurn(turn('t1'));
      expect(await agent.updateTurn('t1', { state: 'failed', error: '{"code":"X"}' }, ['running'])).toBe(false);
      expect((await agent.findTurn('t1'))?.state).toBe('queued');
      expect(await agent.updateTurn('t1', { state: 'running' }, ['queued', 'running'])).toBe(true);
      expect(await agent.updateTurn('nope', { state: 'running' })).toBe(false);
      expect(await agent.deleteQueuedTurn('t1', 't1')).toBe(false);
      await agent.insertTurn(turn('t2'));
      expect(await agent.deleteQueuedTurn('t2', 'another-job')).toBe(false);
      expect(await agent.deleteQueuedTurn('t2', 't2')).toBe(true);
      expect(await agent.findTurn('t2')).toBeUndefined();
    });

    it("changes a session from what it is now, with a turn's fields in the same unit of work", async () => {
      await agent.insertSession(sessionRow('s1', minute(1)));
      await agent.insertTurn(turn('t1'));
      const changed = await agent.changeSession('s1', (row) => ({
        session: { title: `${row.title}!`, updated_at: minute(2) },
        turn: { id: 't1', fields: { plan: '{"action":"answer"}' } },
      }));
      expect(changed).toMatchObject({ title: 'agent s1!', updated_at: minute(2) });
      expect((await agent.findTurn('t1'))?.plan).toBe('{"action":"answer"}');
      expect(await agent.changeSession('s1', () => undefined)).toMatchObject({ title: 'agent s1!' });
      expect(await agent.changeSession('nope', () => ({ session: { title: 'x' } }))).toBeUndefined();
      // A change that throws writes nothing, neither the session nor the turn.
      await expect(
        agent.changeSession('s1', () => {
          throw new Error('refused');
        }),
      ).rejects.toThrow('refused');
      expect((await agent.findSession('s1'))?.title).toBe('agent s1!');
    });

    it('lets concurrent changes of a session each see the one before', async () => {
      await agent.insertSession(sessionRow('s1', minute(1)));
      const names = Array.from({ length: 8 }, (_, index) => `image-${index}.png`);
      await Promise.all(
        names.map((name) =>
          agent.changeSession('s1', (row) => ({ session: { images: JSON.stringify([...(JSON.parse(row.images) as string[]), name]) } })),
        ),
      );
      expect((JSON.parse((await agent.findSession('s1'))?.images ?? '[]') as string[]).sort()).toEqual(names);
    });

    it('deletes a session with its turns, and no other', async () => {
      await agent.insertSession(sessionRow('s1', minute(1)));
      await agent.insertSession(sessionRow('s2', minute(2)));
      await agent.insertTurn(turn('t1'));
      await agent.insertTurn(turn('t2', 's2'));
      expect(await agent.deleteSession('s1')).toBe(true);
      expect(await agent.deleteSession('s1')).toBe(false);
      expect(await agent.findSession('s1')).toBeUndefined();
      expect(await agent.listTurns('s1')).toEqual([]);
      expect(await agent.findTurn('t1')).toBeUndefined();
      expect(await agent.findTurn('t2')).toBeDefined();
    });
  });
}
