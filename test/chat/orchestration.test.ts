import { afterEach, describe, expect, it } from 'vitest';
import { recordEvents, startTestChat, type EventRecorder, type TestChatServer } from './helpers.js';

interface OrcBody {
  state: { phase: string; status: string; task?: string; traceId?: string };
  error?: { code: string };
}

describe('PABCD orchestration', () => {
  const cleanup: Array<() => unknown> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  async function start(options: Parameters<typeof startTestChat>[0] = {}): Promise<{ server: TestChatServer; events: EventRecorder }> {
    const server = await startTestChat({ checks: 'npm test', ...options });
    cleanup.push(() => server.stop());
    const events = await recordEvents(server.url);
    cleanup.push(() => events.close());
    return { server, events };
  }
  const phaseEnded = (events: EventRecorder, phase: string) =>
    events.waitFor(`${phase} to end`, (event) => event.event === 'orc_state' && event.phase === phase && event.status !== 'running');

  it('moves plan → audit → build → check → done one step at a time, each phase sending its prompt', async () => {
    const { server, events } = await start();
    const post = (body: unknown) => server.postJson<OrcBody>('/api/orc', body);
    expect((await post({ action: 'next' })).body.error?.code).toBe('ORC_TRANSITION_INVALID');

    expect((await post({ action: 'start', task: 'add a health route' })).body.state).toMatchObject({
      phase: 'plan',
      status: 'running',
      task: 'add a health route',
    });
    // Refused while the phase still runs, and refused to skip a phase.
    expect((await post({ action: 'next' })).body.error?.code).toBe('ORC_PHASE_RUNNING');
    await phaseEnded(events, 'plan');
    const skip = await post({ action: 'next', phase: 'build' });
    expect(skip.status).toBe(409);
    expect(skip.body.error?.code).toBe('ORC_TRANSITION_INVALID');

    for (const phase of ['audit', 'build', 'check', 'done']) {
      expect((await post({ action: 'next', phase })).body.state).toMatchObject({ phase, status: 'running' });
      await phaseEnded(events, phase);
    }
    expect((await post({ action: 'next' })).body.error?.code).toBe('ORC_TRANSITION_INVALID');

    const states = events.events.filter((event) => event.event === 'orc_state').map((event) => `${event.phase}:${event.status}`);
    expect(states).toEqual([
      'plan:running',
      'plan:ok',
      'audit:running',
      'audit:ok',
      'build:running',
      'build:ok',
      'check:running',
      'check:ok',
      'done:running',
      'done:ok',
    ]);
    const prompts = events.events
      .filter((event) => event.event === 'message' && event.role === 'user')
      .map((event) => String(event.content).split('\n')[0]);
    expect(prompts).toEqual([
      'PABCD phase Plan. Task: add a health route',
      'PABCD phase Audit. Task: add a health route',
      'PABCD phase Build. Task: add a health route',
      'PABCD phase Check. Task: add a health route',
      'PABCD phase Done. Task: add a health route',
    ]);
    const check = events.events.find((event) => event.event === 'message' && String(event.content).startsWith('PABCD phase Check'));
    expect(String(check?.content)).toContain("Run the project's checks (npm test)");

    const { body } = await server.getJson<{ state: OrcBody['state']; transitions: Array<{ from: string; to: string }> }>('/api/orc');
    expect(body.state).toMatchObject({ phase: 'done', status: 'ok' });
    expect(body.transitions[0]).toMatchObject({ from: 'done', to: 'done' });
    // From done: start again, or reset.
    expect((await post({ action: 'reset' })).body.state).toMatchObject({ phase: 'idle', status: 'idle' });
  });

  it('answers /orc commands, and a failed phase turn shows in the status', async () => {
    const { server, events } = await start();
    const command = (text: string) => server.postLines('/api/command', { text });
    expect((await command('/orc')).lines[0]).toEqual({ type: 'text', content: 'Orchestration idle.' });
    expect((await command('/orc start')).status).toBe(400);
    await command('/orc start break it [fake:error]');
    const ended = await phaseEnded(events, 'plan');
    expect(ended.status).toBe('error');
    expect((await command('/orc status')).lines.at(-1)).toMatchObject({ data: { state: { phase: 'plan', status: 'error' } } });
    expect((await command('/orc plan')).status).toBe(400);
    expect((await command('/orc next')).lines.at(-1)).toMatchObject({ data: { state: { phase: 'audit', status: 'running' } } });
  });

  it('keeps the phase across a restart (a graceful stop ends the running turn cancelled)', async () => {
    const first = await start({ keepHome: true });
    await first.server.postJson('/api/orc', { action: 'start', task: 'wait here [fake:hang]' });
    await first.events.waitFor('the hanging plan turn', (event) => event.event === 'agent_tool');
    const home = first.server.home;
    first.events.close();
    await first.server.close();

    const second = await start({ home });
    const { body } = await second.server.getJson<OrcBody>('/api/orc');
    expect(body.state).toMatchObject({ phase: 'plan', status: 'cancelled', task: 'wait here [fake:hang]' });
    const next = await second.server.postJson<OrcBody>('/api/orc', { action: 'next' });
    expect(next.body.state).toMatchObject({ phase: 'audit', status: 'running' });
    await second.server.postLines('/api/command', { text: '/cancel' });
    await phaseEnded(second.events, 'audit');
  });
});
