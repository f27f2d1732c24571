import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capabilitiesBody, promptBuilderChatAnswer, promptBuilderConfig } from '../../src/studio/api/index.js';
import { ServiceError } from '../../src/studio/errors.js';
import { LANE_MODULES, TEXT_LANES } from '../../src/studio/catalog/registry.js';
import type { TextCall } from '../../src/studio/lanes/text-model.js';
import { call } from '../agent/helpers.js';
import { startDemoStudio, type DemoStudio } from '../helpers/studio.js';

// The text capability (lanes/text-model.ts) on a demo studio, every lane on its
// simulator: each text lane answers directly and through the prompt builder,
// its deltas arrive in order and join into its answer, a cancel stops the
// stream, web search is asked only of a lane that says it can search, and the
// catalogs (builder config, GET /api/capabilities) come from the declarations.

const ask = (content: string, extra: Record<string, unknown> = {}) => ({ messages: [{ role: 'user', content }], ...extra });
const conversation = (text: string): Omit<TextCall, 'model'> => ({
  instructions:
    'You are the prompt builder of an image studio. End every answer with one line of the form "Prompt: <the whole image prompt>".',
  messages: [{ role: 'user', text }],
});

describe('text models', () => {
  let studio: DemoStudio;
  const job = (signal = new AbortController().signal) => ({ signal, deadline: Date.now() + 60_000 });

  beforeAll(async () => {
    studio = await startDemoStudio();
  });
  afterAll(() => studio.stop());

  it('the text lanes are the spec’s builder backends in auto order, each with a default among its models', () => {
    expect(TEXT_LANES.map((lane) => lane.id)).toEqual(['oauth', 'alpha', 'api', 'alpha-api']);
    expect(
      LANE_MODULES.filter((lane) => lane.text)
        .map((lane) => lane.id)
        .sort(),
    ).toEqual(['alpha', 'alpha-api', 'api', 'oauth']);
    for (const lane of TEXT_LANES) {
      expect(lane.text.specificationVersion).toBe('v1');
      expect(lane.text.models.map((model) => model.id)).toContain(lane.text.defaultModel);
    }
  });

  it('each text lane answers a conversation; its deltas arrive in order and join into the answer (several on a Responses stream, one on alpha)', async () => {
    for (const lane of TEXT_LANES) {
      const deltas: string[] = [];
      const answer = await lane.text.generate(
        studio.ctx,
        { ...conversation(`a lantern on ${lane.id}`), model: lane.text.defaultModel, onDelta: (delta) => deltas.push(delta) },
        job(),
      );
      expect(answer.text, lane.id).toContain(`a lantern on ${lane.id}`);
      expect(deltas.join(''), lane.id).toBe(answer.text);
      expect(deltas.every((delta) => delta.length > 0)).toBe(true);
      if (lane.id === 'oauth' || lane.id === 'api') expect(deltas.length, lane.id).toBeGreaterThan(1);
      else expect(deltas, lane.id).toHaveLength(1);
      expect(answer.usage?.inputTokens, lane.id).toBeGreaterThan(0);
    }
  });

  it('a cancel mid-stream stops the call: it rejects, and no delta comes after the abort', async () => {
    const lane = TEXT_LANES.find((candidate) => candidate.id === 'api')!;
    const controller = new AbortController();
    const deltas: string[] = [];
    const onDelta = (delta: string) => {
      deltas.push(delta);
      controller.abort(new ServiceError('JOB_CANCELLED', 'The test cancelled the call.'));
    };
    const long =
      'a very long description of a lighthouse on a cliff at dusk with gulls, waves, rocks, clouds and a small boat far out at sea';
    await expect(
      lane.text.generate(studio.ctx, { ...conversation(long), model: lane.text.defaultModel, onDelta }, job(controller.signal)),
    ).rejects.toMatchObject({ code: 'JOB_CANCELLED' });
    expect(deltas).toHaveLength(1);
  });

  it('web search goes only to a lane that says it can: api sends its tool, oauth never does', async () => {
    const responses = () =>
      studio.demo.suite.simulators.responses.simulator.requests().filter((entry) => entry.path.endsWith('/responses'));
    const byId = Object.fromEntries(TEXT_LANES.map((lane) => [lane.id, lane]));
    expect(byId.oauth.text.webSearch).toBe(false);
    expect(byId.api.text.webSearch).toBe(true);
    await byId.api.text.generate(
      studio.ctx,
      { ...conversation('the tallest tower'), model: byId.api.text.defaultModel, webSearch: true },
      job(),
    );
    expect((responses().at(-1)?.body as { tools?: unknown }).tools).toEqual([{ type: 'web_search' }]);
    await byId.oauth.text.generate(
      studio.ctx,
      { ...conversation('the tallest tower'), model: byId.oauth.text.defaultModel, webSearch: true },
      job(),
    );
    const sent = responses().at(-1)?.body as { tools?: unknown; store?: unknown };
    expect(sent.tools).toBeUndefined();
    expect(sent.store).toBe(false);
  });

  it('the builder reaches each text lane by name and auto names the one it chose', async () => {
    for (const lane of TEXT_LANES) {
      const answer = promptBuilderChatAnswer.parse(
        (await call(studio.url, 'POST', '/api/prompt-builder/chat', ask(`a tin robot via ${lane.id}`, { backend: lane.id }))).body,
      );
      expect(answer).toMatchObject({ requestedBackend: lane.id, backend: lane.id, model: lane.text.defaultModel });
      expect(answer.suggestedPrompt).toContain(`a tin robot via ${lane.id}`);
    }
    const auto = promptBuilderChatAnswer.parse((await call(studio.url, 'POST', '/api/prompt-builder/chat', ask('a tin robot'))).body);
    expect(auto).toMatchObject({ requestedBackend: 'auto', backend: TEXT_LANES[0].id });
    // A model only a later lane offers: auto skips to the first lane that has it.
    const planner = promptBuilderChatAnswer.parse(
      (await call(studio.url, 'POST', '/api/prompt-builder/chat', ask('a tin robot', { model: 'alpha-4.6' }))).body,
    );
    expect(planner).toMatchObject({ requestedBackend: 'auto', backend: 'alpha', model: 'alpha-4.6' });
  });

  it('the builder config and GET /api/capabilities list the text models the lanes declare', async () => {
    const config = promptBuilderConfig.parse((await call(studio.url, 'GET', '/api/prompt-builder/config')).body);
    const capabilities = capabilitiesBody.parse((await call(studio.url, 'GET', '/api/capabilities')).body);
    for (const lane of TEXT_LANES) {
      const ids = lane.text.models.map((model) => model.id);
      expect(config.backends.find((backend) => backend.id === lane.id)).toMatchObject({
        models: ids,
        defaultModel: lane.text.defaultModel,
        ready: true,
      });
      const entry = capabilities.providers.find((provider) => provider.id === lane.id);
      expect(entry && !entry.routingMode ? entry.text : undefined).toEqual({
        models: lane.text.models.map((model) => ({ ...model })),
        defaultModel: lane.text.defaultModel,
        webSearch: lane.text.webSearch,
      });
    }
    const others = capabilities.providers.filter(
      (provider) => !provider.routingMode && !TEXT_LANES.some((lane) => lane.id === provider.id),
    );
    expect(others.length).toBeGreaterThan(0);
    expect(others.every((provider) => !provider.routingMode && provider.text === null)).toBe(true);
  });
});
