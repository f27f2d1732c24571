import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentSessionsPage } from '../../src/studio/api/index.js';
import { startDemoStudio, type DemoStudio } from '../helpers/studio.js';
import { call, createSession, refused, session, turn } from './helpers.js';

// Agent Mode turns on a demo studio (every lane on its simulator, over real
// HTTP): the bar's turn that makes an image current, the edit that starts from
// it, /question with no image, and every slash command.

let studio: DemoStudio;
let url: string;

beforeAll(async () => {
  studio = await startDemoStudio('svc-agent-');
  url = studio.url;
});
afterAll(() => studio.stop());

/** The input images of the Responses request whose text contains `marker`. */
function upstreamInputImages(marker: string): string[] {
  const entry = studio.demo.suite.simulators.responses.simulator
    .requests()
    .filter((request) => JSON.stringify(request.body).includes(marker) && JSON.stringify(request.body).includes('image_generation'))
    .at(-1);
  const input = (entry?.body as { input?: Array<{ content: Array<{ type: string; image_url?: string }> }> } | undefined)?.input ?? [];
  return input.flatMap((message) => message.content.filter((part) => part.type === 'input_image').map((part) => String(part.image_url)));
}

describe('the bar', () => {
  it('a turn makes an image and it becomes current; "make it blue" edits it; /question answers with no image', async () => {
    const created = await createSession(url, { title: 'Foxes' });
    expect(created).toMatchObject({ title: 'Foxes', currentImage: null, settings: {}, queue: { queued: 0, succeeded: 0 } });

    const first = await turn(url, created.id, 'a red fox in the snow');
    expect(first).toMatchObject({ state: 'succeeded', command: null, provider: 'oauth', inputImage: null, error: null });
    // The planner model decided (the demo's chat session is ready), and said so.
    expect(first.plan).toMatchObject({ action: 'generate', decidedBy: 'planner', backend: 'oauth', model: 'lang-6-luna', variants: 1 });
    expect(first.finalPrompt).toContain('a red fox in the snow');
    expect(first.images).toHaveLength(1);
    expect(first.timings?.totalMs).toBeGreaterThan(0);
    const afterFirst = await session(url, created.id);
    expect(afterFirst.currentImage?.filename).toBe(first.images[0].filename);
    expect(afterFirst.images).toEqual([first.images[0].filename]);

    const blue = await turn(url, created.id, 'make it blue');
    expect(blue.plan).toMatchObject({ action: 'edit', decidedBy: 'planner' });
    expect(blue.inputImage).toBe(first.images[0].filename);
    expect(blue.images).toHaveLength(1);
    expect(blue.images[0].kind).toBe('edit');
    // The edit went upstream with the current image as its input image.
    const sent = upstreamInputImages('make it blue');
    expect(sent).toHaveLength(1);
    const original = Buffer.from(await (await fetch(`${url}${first.images[0].url}`)).arrayBuffer());
    expect(Buffer.from(sent[0].split(',')[1], 'base64').equals(original)).toBe(true);
    expect((await session(url, created.id)).currentImage?.filename).toBe(blue.images[0].filename);

    const question = await turn(url, created.id, '/question what is in the picture?');
    expect(question).toMatchObject({ state: 'succeeded', command: 'question', images: [], finalPrompt: null });
    expect(question.plan).toMatchObject({ action: 'answer', decidedBy: 'planner', backend: 'oauth' });
    // The answer is the model's, about this workspace: it names the current image's prompt.
    expect(question.reply).toContain('what is in the picture?');
    expect(question.reply).toContain(blue.finalPrompt?.slice(0, 20));
    const after = await session(url, created.id);
    expect(after.currentImage?.filename).toBe(blue.images[0].filename);
    expect(after.turns.map((item) => item.itemId)).toEqual([first.itemId, blue.itemId, question.itemId]);
    expect(after.queue).toMatchObject({ succeeded: 3, queued: 0, running: 0, failed: 0, cancelled: 0 });
  });
});

describe('slash commands', () => {
  it('/variants makes n images; /undo goes back one step; /new ignores the current image; /edit forces an edit', async () => {
    const created = await createSession(url, { styleLock: 'watercolour', subjectLock: 'a lighthouse' });
    const variants = await turn(url, created.id, '/variants 2 on a cliff at dusk');
    expect(variants.plan).toMatchObject({ action: 'generate', variants: 2, decidedBy: 'command' });
    expect(variants.images).toHaveLength(2);
    // The locks are kept in every image prompt.
    expect(variants.finalPrompt).toContain('watercolour');
    expect(variants.finalPrompt).toContain('a lighthouse');
    expect((await session(url, created.id)).currentImage?.filename).toBe(variants.images[0].filename);

    const edited = await turn(url, created.id, '/edit add a rainbow');
    expect(edited.plan).toMatchObject({ action: 'edit', decidedBy: 'command' });
    expect(edited.inputImage).toBe(variants.images[0].filename);
    const fresh = await turn(url, created.id, '/new make it a castle instead');
    expect(fresh.plan).toMatchObject({ action: 'generate', decidedBy: 'command' });
    expect(fresh.inputImage).toBeNull();

    const undone = await turn(url, created.id, '/undo');
    expect(undone.images).toEqual([]);
    expect((await session(url, created.id)).currentImage?.filename).toBe(edited.images[0].filename);
    await turn(url, created.id, '/undo');
    expect((await session(url, created.id)).currentImage?.filename).toBe(variants.images[0].filename);
  });

  it('/lane sets the lane for the next turns; /help lists the commands', async () => {
    const created = await createSession(url);
    const lane = await turn(url, created.id, '/lane gamma');
    expect(lane.reply).toContain('gamma');
    expect((await session(url, created.id)).settings).toMatchObject({ provider: 'gamma' });
    const made = await turn(url, created.id, '/new a tin robot');
    expect(made.provider).toBe('gamma');

    const help = await turn(url, created.id, '/help');
    for (const usage of [
      '/question <text>',
      '/variants <n> <prompt>',
      '/edit <prompt>',
      '/new <prompt>',
      '/lane <lane>[/<model>]',
      '/undo',
      '/help',
    ])
      expect(help.reply).toContain(usage);
  });

  it('an unknown command, a command without its text, a bad value, an empty prompt: each its code, nothing queued', async () => {
    const created = await createSession(url);
    const unknown = await refused(
      call(url, 'POST', `/api/agent/sessions/${created.id}/turns`, { prompt: '/dance now' }),
      400,
      'AGENT_UNKNOWN_COMMAND',
    );
    expect(unknown.details?.commands).toContain('/help');
    await refused(call(url, 'POST', `/api/agent/sessions/${created.id}/turns`, { prompt: '/edit' }), 400, 'AGENT_PROMPT_REQUIRED');
    await refused(
      call(url, 'POST', `/api/agent/sessions/${created.id}/turns`, { prompt: '/variants 9 cats' }),
      400,
      'AGENT_COMMAND_INVALID',
    );
    await refused(call(url, 'POST', `/api/agent/sessions/${created.id}/turns`, { prompt: '/lane nowhere' }), 400, 'AGENT_COMMAND_INVALID');
    await refused(call(url, 'POST', `/api/agent/sessions/${created.id}/turns`, { prompt: '   ' }), 400, 'AGENT_PROMPT_REQUIRED');
    await refused(call(url, 'POST', `/api/agent/sessions/${created.id}/turns`, {}), 400, 'AGENT_PROMPT_REQUIRED');
    // An edit with no current image fails as an item with its code.
    const noImage = await call<{ error: { code: string } }>(url, 'POST', `/api/agent/sessions/${created.id}/turns`, {
      prompt: '/edit add a hat',
    });
    expect({ status: noImage.status, code: noImage.body.error.code }).toEqual({ status: 409, code: 'AGENT_NO_CURRENT_IMAGE' });
    const after = await session(url, created.id);
    expect(after.turns.map((item) => [item.prompt, item.state])).toEqual([['/edit add a hat', 'failed']]);
  });
});

describe('sessions', () => {
  it('lists, loads, updates (settings, locks, current image from history or an upload) and deletes; unknown ids are 404 with a code', async () => {
    const created = await createSession(url, { title: 'Mine', settings: { provider: 'gamma' }, webSearch: true });
    expect(created).toMatchObject({ title: 'Mine', settings: { provider: 'gamma' }, webSearch: true });
    const listed = await call(url, 'GET', '/api/agent/sessions');
    expect(agentSessionsPage.parse(listed.body).sessions.map((item) => item.id)).toContain(created.id);

    await refused(
      call(url, 'POST', '/api/agent/sessions', { settings: { provider: 'beta-api', model: 'lang-6-luna' } }),
      400,
      'INVALID_BETA_API_IMAGE_MODEL',
    );
    await refused(call(url, 'POST', '/api/agent/sessions', { titel: 'typo' }), 400, 'BAD_REQUEST');

    const made = await turn(url, created.id, '/new a paper boat');
    const tiny = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
    const uploaded = await call<{ currentImage: { filename: string; kind: string } }>(url, 'PATCH', `/api/agent/sessions/${created.id}`, {
      currentImage: { data: tiny, name: 'dot.png' },
      styleLock: 'ink',
    });
    expect(uploaded.status).toBe(200);
    expect(uploaded.body.currentImage.kind).toBe('import');
    const fromHistory = await call<{ currentImage: { filename: string }; styleLock: string }>(
      url,
      'PATCH',
      `/api/agent/sessions/${created.id}`,
      { currentImage: { filename: made.images[0].filename } },
    );
    expect(fromHistory.body).toMatchObject({ currentImage: { filename: made.images[0].filename }, styleLock: 'ink' });
    await refused(
      call(url, 'PATCH', `/api/agent/sessions/${created.id}`, { currentImage: { filename: 'nope.png' } }),
      404,
      'AGENT_IMAGE_NOT_FOUND',
    );
    // /undo goes back to the upload.
    await turn(url, created.id, '/undo');
    expect((await session(url, created.id)).currentImage?.filename).toBe(uploaded.body.currentImage.filename);

    expect((await call(url, 'DELETE', `/api/agent/sessions/${created.id}`)).status).toBe(200);
    await refused(call(url, 'GET', `/api/agent/sessions/${created.id}`), 404, 'AGENT_SESSION_NOT_FOUND');
    await refused(call(url, 'POST', `/api/agent/sessions/${created.id}/turns`, { prompt: 'hello' }), 404, 'AGENT_SESSION_NOT_FOUND');
    await refused(call(url, 'PATCH', '/api/agent/sessions/nope', { title: 'x' }), 404, 'AGENT_SESSION_NOT_FOUND');
    // Its images stay in history.
    expect((await fetch(`${url}${made.images[0].url}`)).status).toBe(200);
  });
});

describe('web search', () => {
  it('a session with web search on: a planner on the alpha backend searches first, and its findings reach the plan', async () => {
    expect((await call(url, 'PUT', '/api/prompt-builder/config', { backend: 'alpha' })).status).toBe(200);
    try {
      const searching = await createSession(url, { webSearch: true, settings: { provider: 'gamma' } });
      const planned = await turn(url, searching.id, 'the tallest tower in town');
      expect(planned.plan).toMatchObject({ decidedBy: 'planner', backend: 'alpha', model: 'alpha-4.3' });
      const alpha = studio.demo.suite.simulators.alpha.simulator
        .requests()
        .filter((entry) => entry.path === '/v1/responses' && JSON.stringify(entry.body).includes('the tallest tower in town'));
      const [search, planner] = alpha.map((entry) => entry.body as { tools?: { type: string }[]; input: unknown });
      expect(search.tools?.map((tool) => tool.type)).toEqual(['web_search']);
      expect(JSON.stringify(planner.input)).toContain('Web findings');

      const quiet = await createSession(url, { settings: { provider: 'gamma' } });
      const before = studio.demo.suite.simulators.alpha.simulator.requests().length;
      await turn(url, quiet.id, 'a small hut by the sea');
      const calls = studio.demo.suite.simulators.alpha.simulator
        .requests()
        .slice(before)
        .filter((entry) => entry.path === '/v1/responses');
      expect(calls).toHaveLength(1);
    } finally {
      await call(url, 'PUT', '/api/prompt-builder/config', { backend: 'auto' });
    }
  });
});
