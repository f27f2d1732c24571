import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRig, type Rig } from '../generate/rig.js';
import { createSession, turn } from './helpers.js';

// The rule-based planner: it decides when no planner backend is ready (here
// the builder is pinned to `api`, which has no key) or when the planner model
// fails, and the turn says so. Images still come from the session's lane
// (`oauth`, whose chat session is there).

let pinned: Rig;
let auto: Rig;

beforeAll(async () => {
  pinned = await startRig({ apiKey: false, oauth: {}, env: { SVC_PROMPT_BUILDER_BACKEND: 'api' } });
  auto = await startRig({ apiKey: false, oauth: {} });
});
afterAll(async () => {
  await pinned.stop();
  await auto.stop();
});

describe('the rules decide', () => {
  it('when the pinned planner backend is unavailable: a new image, an edit of it, a question answered from the workspace', async () => {
    const url = pinned.studio.url;
    const created = await createSession(url);
    const first = await turn(url, created.id, 'a cat on a mat');
    expect(first.plan).toMatchObject({ action: 'generate', decidedBy: 'rules', backend: null, model: null });
    expect(first.plan?.fallbackReason).toContain('PROMPT_BUILDER_BACKEND_UNAVAILABLE');
    expect(first).toMatchObject({ provider: 'oauth', state: 'succeeded' });
    expect(first.images).toHaveLength(1);

    const green = await turn(url, created.id, 'make it green');
    expect(green.plan).toMatchObject({ action: 'edit', decidedBy: 'rules' });
    expect(green.inputImage).toBe(first.images[0].filename);

    const question = await turn(url, created.id, 'what did you draw?');
    expect(question.plan).toMatchObject({ action: 'answer', decidedBy: 'rules' });
    expect(question.images).toEqual([]);
    expect(question.reply).toContain('make it green');

    const three = await turn(url, created.id, '/new 2 variants of a dog');
    expect(three.images).toHaveLength(1);
    // Not a planner call anywhere: every request upstream carried the image tool.
    const textOnly = pinned.sim.simulator
      .requests()
      .filter((entry) => entry.path.endsWith('/responses') && !JSON.stringify(entry.body).includes('image_generation'));
    expect(textOnly).toHaveLength(0);
  });

  it('when the planner model fails: the turn still runs, decided by the rules, with the reason', async () => {
    const url = auto.studio.url;
    const created = await createSession(url);
    const planned = await turn(url, created.id, 'a lantern at dusk');
    expect(planned.plan).toMatchObject({ decidedBy: 'planner', backend: 'oauth' });
    auto.sim.simulator.fault('POST /backend-api/codex/responses', { status: 500, times: 1 });
    const fallback = await turn(url, created.id, 'a lantern at dawn, 3 variants');
    expect(fallback.plan).toMatchObject({ action: 'generate', decidedBy: 'rules', variants: 3 });
    expect(fallback.plan?.fallbackReason).toContain('oauth planner failed');
    expect(fallback.images).toHaveLength(3);
  });
});
