import { afterEach, describe, expect, it } from 'vitest';
import { recordEvents, startTestChat, waitFor, waitIdle, type EventRecorder, type TestChatServer } from './helpers.js';

interface GoalBody {
  goal: null | {
    id: string;
    objective: string;
    status: string;
    continuations: number;
    autoStopped?: string;
    pauseGate?: string;
    checkpoints: Array<{ summary: string; nextAction?: string; evidence: string[]; source: string }>;
    refinements: Array<{ objective: string }>;
  };
}

describe('goals', () => {
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
  const idle = (server: TestChatServer) => waitIdle(server);

  it('sets, refines, checkpoints, pauses, resumes and completes a goal over HTTP, refusing what its state does not allow', async () => {
    const { server, events } = await start({ goalMaxContinuations: 1 });
    const post = (body: unknown) => server.postJson<GoalBody & { error?: { code: string } }>('/api/goal', body);

    expect((await server.getJson<GoalBody>('/api/goal')).body.goal).toBeNull();
    expect((await post({ action: 'done' })).body.error?.code).toBe('GOAL_NOT_FOUND');
    // A NUL could never reach the agent (the objective becomes part of an argv element): refused up front.
    const nul = await post({ action: 'set', objective: 'write\u0000the report' });
    expect(nul.status).toBe(400);
    expect(nul.body.error?.code).toBe('BAD_REQUEST');
    expect((await server.getJson<GoalBody>('/api/goal')).body.goal).toBeNull();
    const set = await post({ action: 'set', objective: 'write the report' });
    expect(set.status).toBe(200);
    expect(set.body.goal).toMatchObject({ objective: 'write the report', status: 'active' });
    await idle(server);

    // One goal at a time: another is refused unless it replaces.
    const again = await post({ action: 'set', objective: 'something else' });
    expect(again.status).toBe(409);
    expect(again.body.error?.code).toBe('GOAL_ACTIVE');

    expect((await post({ action: 'refine', objective: 'write the short report' })).body.goal).toMatchObject({
      objective: 'write the short report',
      refinements: [{ objective: 'write the report' }],
    });
    await idle(server);
    // Done needs evidence on the latest checkpoint.
    await post({ action: 'update', summary: 'outline written', nextAction: 'fill in' });
    const refused = await post({ action: 'done' });
    expect(refused.status).toBe(409);
    expect(refused.body.error?.code).toBe('GOAL_EVIDENCE_REQUIRED');
    await events.waitFor(
      'goal_done_rejected',
      (event) => event.event === 'goal_done_rejected' && event.reason === 'the latest checkpoint carries no evidence',
    );

    expect((await post({ action: 'pause', reason: 'lunch' })).body.goal?.status).toBe('paused');
    expect((await post({ action: 'pause' })).body.error?.code).toBe('GOAL_STATE_CONFLICT');
    expect((await post({ action: 'resume' })).body.goal?.status).toBe('active');
    await idle(server);
    await post({ action: 'update', summary: 'report done', evidence: ['report.md exists', 'reviewed'] });
    const done = await post({ action: 'done' });
    expect(done.body.goal).toMatchObject({ status: 'done' });
    await events.waitFor('goal_done', (event) => event.event === 'goal_done' && event.goalId === done.body.goal?.id);
    expect((await post({ action: 'cancel' })).body.error?.code).toBe('GOAL_STATE_CONFLICT');

    expect((await post({ action: 'clear' })).body.goal?.id).toBe(done.body.goal?.id);
    expect((await server.getJson<GoalBody>('/api/goal')).body.goal).toBeNull();
    const history = await server.getJson<{ goals: Array<{ id: string }> }>('/api/goal/history');
    expect(history.body.goals.map((goal) => goal.id)).toEqual([done.body.goal?.id]);
    expect((await post({ action: 'set', objective: '   ' })).status).toBe(400);
    expect((await post({ action: 'fly' })).status).toBe(400);
  });

  it('works through /goal commands too, with checkpoints parsed from the command line', async () => {
    const { server } = await start({ goalMaxContinuations: 1 });
    const command = (text: string) => server.postLines('/api/command', { text });
    expect((await command('/goal')).lines[0]).toEqual({ type: 'text', content: 'No current goal.' });
    await command('/goal set tidy the docs');
    await idle(server);
    const update = await command('/goal update docs tidied | next: publish | evidence: lint clean; links checked');
    const goal = (update.lines.at(-1)?.data as { goal: { latestCheckpoint: unknown } }).goal;
    expect(goal.latestCheckpoint).toMatchObject({
      summary: 'docs tidied',
      nextAction: 'publish',
      evidence: ['lint clean', 'links checked'],
      source: 'user',
    });
    expect((await command('/goal set another one')).status).toBe(409);
    expect((await command('/goal done')).lines.at(-1)).toMatchObject({
      type: 'done',
      status: 'ok',
      data: { action: 'done', goal: { status: 'done' } },
    });
    expect((await command('/goal frobnicate')).status).toBe(400);
    expect((await command('/goal history')).lines[0].content).toContain('done — tidy the docs');
  });

  it('continues automatically after a successful turn, at most the configured number of turns in a row', async () => {
    const { server, events } = await start({ goalMaxContinuations: 2 });
    await server.postJson('/api/goal', { action: 'set', objective: 'keep going' });
    await events.waitFor(
      'the bound',
      (event) =>
        event.event === 'goal_update' && String((event.goal as { autoStopped?: string }).autoStopped).startsWith('2 automatic turns'),
    );
    await idle(server);
    const prompts = events.events
      .filter((event) => event.event === 'message' && event.role === 'user')
      .map((event) => String(event.content));
    expect(prompts).toHaveLength(2);
    expect(prompts.every((prompt) => prompt.startsWith('Continue working on the goal: keep going'))).toBe(true);

    // A person's turn resets the count: one more message, and continuation goes on again after it.
    await server.postLines('/api/message', { prompt: 'a person speaks' });
    await waitFor(
      'two more continuations',
      () => events.events.filter((event) => event.event === 'message' && event.role === 'user').length === 5,
    );
  });

  it('the confirmed pause stops automatic turns until /goal resume; the gate then starts over', async () => {
    const { server, events } = await start();
    await server.postJson('/api/goal', { action: 'set', objective: 'check with me [fake:goalpause]' });
    await events.waitFor('the pause confirmed', (event) => event.event === 'goal_pause_gate_pending');
    await waitIdle(server);
    const stopped = await server.getJson<GoalBody>('/api/goal');
    expect(stopped.body.goal).toMatchObject({
      status: 'active',
      continuations: 2,
      autoStopped: 'pause gate pending: waiting for a person to review (fake run); /goal resume continues',
    });
    // A person's turn alone does not lift a confirmed pause.
    await server.postLines('/api/message', { prompt: 'just a question' });
    await waitIdle(server);
    expect(events.events.filter((event) => event.event === 'message' && event.role === 'user')).toHaveLength(3);

    const resumed = await server.postJson<GoalBody>('/api/goal', { action: 'resume' });
    expect(resumed.status).toBe(200);
    await waitFor('the gate to hold again', () => events.events.filter((event) => event.event === 'goal_pause_gate_pending').length === 2);
    expect(events.events.filter((event) => event.event === 'goal_pause_detected')).toHaveLength(4);
  });

  it('a stale goal stops continuing; a failed turn does not continue', async () => {
    const { server, events } = await start({ goalStaleMs: 1 });
    const set = await server.postJson<GoalBody>('/api/goal', { action: 'set', objective: 'old news' });
    // The first turn starts at once (the goal was just touched); after it the goal is stale.
    await events.waitFor(
      'stale',
      (event) => event.event === 'goal_update' && String((event.goal as { autoStopped?: string }).autoStopped).startsWith('stale'),
    );
    await idle(server);
    expect(events.events.filter((event) => event.event === 'message' && event.role === 'user')).toHaveLength(1);
    expect(set.body.goal?.status).toBe('active');

    const fresh = await start({ goalMaxContinuations: 5 });
    await fresh.server.postJson('/api/goal', { action: 'set', objective: 'this breaks [fake:error]' });
    await fresh.events.waitFor('the failed turn', (event) => event.event === 'agent_done' && event.status === 'error');
    await idle(fresh.server);
    expect(fresh.events.events.filter((event) => event.event === 'agent_done')).toHaveLength(1);
  });

  it('a turn started for a replaced goal does not complete the new one', async () => {
    const { server, events } = await start({ goalMaxContinuations: 1 });
    const first = await server.postJson<GoalBody>('/api/goal', { action: 'set', objective: 'old one [fake:slow] [fake:goaldone]' });
    await events.waitFor(
      'the old goal’s turn running',
      (event) => event.event === 'agent_output' && String(event.content).startsWith('Step 1'),
    );
    const second = await server.postJson<GoalBody>('/api/goal', { action: 'set', objective: 'new one', replace: true });
    // The new goal's first turn runs after the old one's; its done marker is the old goal's.
    await waitFor('the new goal’s first turn', () =>
      events.events.some((event) => event.event === 'message' && event.role === 'user' && String(event.content).includes('new one')),
    );
    await idle(server);
    expect(events.events.filter((event) => event.event === 'goal_done')).toEqual([]);
    const { body } = await server.getJson<GoalBody>('/api/goal');
    expect(body.goal).toMatchObject({ id: second.body.goal?.id, status: 'active', continuations: 1 });
    const history = await server.getJson<{ goals: Array<{ id: string; status: string; endReason?: string }> }>('/api/goal/history');
    expect(history.body.goals.find((goal) => goal.id === first.body.goal?.id)).toMatchObject({
      status: 'cancelled',
      endReason: 'replaced by a new goal',
    });
  });

  it('keeps the goal across a restart', async () => {
    const first = await start({ keepHome: true, goalMaxContinuations: 1 });
    const set = await first.server.postJson<GoalBody>('/api/goal', { action: 'set', objective: 'survive restarts' });
    await idle(first.server);
    await first.server.postJson('/api/goal', { action: 'pause' });
    const home = first.server.home;
    first.events.close();
    await first.server.close();
    const second = await start({ home, goalMaxContinuations: 1 });
    const { body } = await second.server.getJson<GoalBody>('/api/goal');
    expect(body.goal).toMatchObject({ id: set.body.goal?.id, objective: 'survive restarts', status: 'paused' });
  });
});
