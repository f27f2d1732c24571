import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { promptBuilderChatAnswer, promptBuilderConfig } from '../../src/studio/api/index.js';
import { splitSuggestion } from '../../src/studio/prompt-builder/chat.js';
import { startRig, type Rig } from '../generate/rig.js';
import { call, refused } from '../agent/helpers.js';
import { makeTempHome, startDemoStudio, startTestStudio, type DemoStudio, type TestStudio } from '../helpers/studio.js';

// The prompt builder over real HTTP against the simulators: routing pinned or
// auto (which backend answered is reported), the typed error without fallback,
// the config with its catalogs, persistence and environment locks, and answers
// that follow what was said.

const ask = (content: string, extra: Record<string, unknown> = {}) => ({ messages: [{ role: 'user', content }], ...extra });

/** The Responses simulator's log of text calls (no image tool). */
const textCalls = (rig: Rig) => rig.sim.simulator.requests().filter((entry) => entry.path.endsWith('/responses'));

describe('routing on the Responses simulator', () => {
  let withSession: Rig;
  let keyOnly: Rig;
  let nothing: Rig;

  beforeAll(async () => {
    withSession = await startRig({ apiKey: false, oauth: {} });
    keyOnly = await startRig({ apiKey: true });
    nothing = await startRig({ apiKey: false });
  });
  afterAll(async () => {
    await withSession.stop();
    await keyOnly.stop();
    await nothing.stop();
  });

  it('backend "api" with no key: a typed error naming the backend and why, and no fallback to the ready oauth backend', async () => {
    const error = await refused(
      call(withSession.studio.url, 'POST', '/api/prompt-builder/chat', ask('a fox', { backend: 'api' })),
      503,
      'PROMPT_BUILDER_BACKEND_UNAVAILABLE',
    );
    expect(error.details).toMatchObject({ backend: 'api', state: 'needs_credential' });
    expect(String(error.details?.reason)).toContain('OMNI_API_KEY');
    expect(textCalls(withSession)).toHaveLength(0);
  });

  it('auto reports which backend answered: oauth when the chat session is there, else api; none ready is its own code', async () => {
    const viaOauth = promptBuilderChatAnswer.parse(
      (await call(withSession.studio.url, 'POST', '/api/prompt-builder/chat', ask('a fox in the snow'))).body,
    );
    expect(viaOauth).toMatchObject({ requestedBackend: 'auto', backend: 'oauth', model: 'lang-6-luna' });
    const viaApi = promptBuilderChatAnswer.parse(
      (await call(keyOnly.studio.url, 'POST', '/api/prompt-builder/chat', ask('a fox in the snow'))).body,
    );
    expect(viaApi).toMatchObject({ requestedBackend: 'auto', backend: 'api', model: 'lang-5.6-luna' });
    expect(textCalls(keyOnly).at(-1)?.path).toBe('/v1/responses');
    const none = await refused(
      call(nothing.studio.url, 'POST', '/api/prompt-builder/chat', ask('a fox')),
      503,
      'PROMPT_BUILDER_NO_BACKEND',
    );
    expect(none.details).toMatchObject({ autoOrder: ['oauth', 'alpha', 'api', 'alpha-api'] });
  });

  it('the answer follows the input: the suggested prompt apart from the chat text, different for different requests', async () => {
    const fox = promptBuilderChatAnswer.parse(
      (await call(withSession.studio.url, 'POST', '/api/prompt-builder/chat', ask('a fox at night'))).body,
    );
    const boat = promptBuilderChatAnswer.parse(
      (await call(withSession.studio.url, 'POST', '/api/prompt-builder/chat', ask('a paper boat on a pond'))).body,
    );
    expect(fox.suggestedPrompt).toContain('a fox at night');
    expect(boat.suggestedPrompt).toContain('a paper boat on a pond');
    expect(fox.suggestedPrompt).not.toBe(boat.suggestedPrompt);
    expect(fox.reply).not.toContain('Prompt:');
    expect(fox.reply.length).toBeGreaterThan(0);
    const improved = promptBuilderChatAnswer.parse(
      (await call(withSession.studio.url, 'POST', '/api/prompt-builder/chat', ask('add a red scarf', { currentPrompt: 'a snowman' }))).body,
    );
    expect(improved.suggestedPrompt).toMatch(/a snowman.*add a red scarf/);
    // What went upstream: the builder's instructions and the conversation, no tools.
    const sent = textCalls(withSession).at(-1)?.body as { instructions: string; tools?: unknown; input: unknown[] };
    expect(sent.instructions).toContain('prompt builder');
    expect(sent.tools).toBeUndefined();
  });

  it('bad requests are refused with their codes', async () => {
    const url = withSession.studio.url;
    await refused(call(url, 'POST', '/api/prompt-builder/chat', { messages: [] }), 400, 'BAD_REQUEST');
    await refused(call(url, 'POST', '/api/prompt-builder/chat', { messages: [{ role: 'assistant', content: 'hi' }] }), 400, 'BAD_REQUEST');
    await refused(call(url, 'POST', '/api/prompt-builder/chat', ask('x', { backend: 'gamma' })), 400, 'BAD_REQUEST');
    await refused(
      call(url, 'POST', '/api/prompt-builder/chat', ask('x', { backend: 'oauth', model: 'alpha-4.5' })),
      400,
      'PROMPT_BUILDER_INVALID_MODEL',
    );
  });

  it('config: catalogs, autoOrder and locks; PUT persists the pair (validated); the chat then uses it', async () => {
    const url = keyOnly.studio.url;
    const config = promptBuilderConfig.parse((await call(url, 'GET', '/api/prompt-builder/config')).body);
    expect(config).toMatchObject({
      backend: 'auto',
      model: null,
      locked: { backend: false, model: false },
      source: { backend: 'default' },
      autoOrder: ['oauth', 'alpha', 'api', 'alpha-api'],
    });
    const byId = Object.fromEntries(config.backends.map((backend) => [backend.id, backend]));
    expect(byId.oauth).toMatchObject({ ready: false, defaultModel: 'lang-6-luna' });
    expect(byId.api).toMatchObject({ ready: true, defaultModel: 'lang-5.6-luna' });
    expect(byId.alpha.models).toEqual(['alpha-4.3', 'alpha-4.5', 'alpha-4.6']);

    await refused(
      call(url, 'PUT', '/api/prompt-builder/config', { backend: 'api', model: 'alpha-4.5' }),
      400,
      'PROMPT_BUILDER_INVALID_MODEL',
    );
    const saved = promptBuilderConfig.parse(
      (await call(url, 'PUT', '/api/prompt-builder/config', { backend: 'api', model: 'lang-5.6-sol' })).body,
    );
    expect(saved).toMatchObject({ backend: 'api', model: 'lang-5.6-sol', source: { backend: 'config', model: 'config' } });
    const file = JSON.parse(readFileSync(join(keyOnly.home, 'config.json'), 'utf8')) as { promptBuilder: unknown };
    expect(file.promptBuilder).toEqual({ backend: 'api', model: 'lang-5.6-sol' });
    const answer = promptBuilderChatAnswer.parse((await call(url, 'POST', '/api/prompt-builder/chat', ask('a red kite'))).body);
    expect(answer).toMatchObject({ requestedBackend: 'api', backend: 'api', model: 'lang-5.6-sol' });
    expect((textCalls(keyOnly).at(-1)?.body as { model: string }).model).toBe('lang-5.6-sol');
  });
});

describe('environment locks', () => {
  let studio: TestStudio;
  beforeAll(async () => {
    studio = await startTestStudio({ env: { SVC_PROMPT_BUILDER_BACKEND: 'oauth', SVC_HOME: makeTempHome() } });
  });
  afterAll(() => studio.stop());

  it('a backend fixed by the environment cannot be changed through the API, and the answer says so; the model still can', async () => {
    const config = promptBuilderConfig.parse((await call(studio.url, 'GET', '/api/prompt-builder/config')).body);
    expect(config).toMatchObject({
      backend: 'oauth',
      locked: { backend: true, model: false },
      source: { backend: 'env' },
      env: { backend: 'SVC_PROMPT_BUILDER_BACKEND' },
    });
    const locked = await refused(
      call(studio.url, 'PUT', '/api/prompt-builder/config', { backend: 'api' }),
      409,
      'PROMPT_BUILDER_ENV_LOCKED',
    );
    expect(locked.details).toMatchObject({ field: 'backend', env: 'SVC_PROMPT_BUILDER_BACKEND' });
    const saved = promptBuilderConfig.parse(
      (await call(studio.url, 'PUT', '/api/prompt-builder/config', { backend: 'oauth', model: 'lang-6-sol' })).body,
    );
    expect(saved).toMatchObject({ backend: 'oauth', model: 'lang-6-sol', locked: { backend: true, model: false } });
  });
});

describe('the alpha backends on a demo studio', () => {
  let studio: DemoStudio;
  beforeAll(async () => {
    studio = await startDemoStudio();
  });
  afterAll(() => studio.stop());

  it('alpha and alpha-api answer through the planner protocol, with the model asked for', async () => {
    const viaAlpha = promptBuilderChatAnswer.parse(
      (await call(studio.url, 'POST', '/api/prompt-builder/chat', ask('a glass whale', { backend: 'alpha' }))).body,
    );
    expect(viaAlpha).toMatchObject({ requestedBackend: 'alpha', backend: 'alpha', model: 'alpha-4.3' });
    expect(viaAlpha.suggestedPrompt).toContain('a glass whale');
    const viaKey = promptBuilderChatAnswer.parse(
      (await call(studio.url, 'POST', '/api/prompt-builder/chat', ask('a copper owl', { backend: 'alpha-api', model: 'alpha-4.6' }))).body,
    );
    expect(viaKey).toMatchObject({ backend: 'alpha-api', model: 'alpha-4.6' });
    expect(viaKey.suggestedPrompt).toContain('a copper owl');
    const sent = studio.demo.suite.simulators.alpha.simulator
      .requests()
      .filter((entry) => entry.path === '/v1/responses')
      .at(-1)?.body as { model: string; tools?: unknown[] };
    expect(sent.model).toBe('alpha-4.6');
    expect(sent.tools ?? []).toEqual([]);
  });
});

describe('the suggested prompt', () => {
  it('is the last Prompt: line, plain or in bold as models write it, without its markup', () => {
    expect(splitSuggestion('Nice start.\nPrompt: a fox at night')).toEqual({ reply: 'Nice start.', suggestedPrompt: 'a fox at night' });
    expect(splitSuggestion('Nice start.\n**Prompt:** a fox at night').suggestedPrompt).toBe('a fox at night');
    expect(splitSuggestion('Nice start.\n**Prompt**: "a fox at night"').suggestedPrompt).toBe('a fox at night');
    expect(splitSuggestion('No line here.')).toEqual({ reply: 'No line here.', suggestedPrompt: null });
  });
});
