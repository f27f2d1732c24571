import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fingerprintSecret } from '../../src/sim/harness.js';
import { RESPONSES_ROUTES, startResponsesSimulator, type ResponsesSimulator } from '../../src/sim/responses-simulator.js';
import { apiHeaders, imageBody } from './responses-fixtures.js';
import { postJson, readSse } from './sse-client.js';

let sim: ResponsesSimulator;
let responsesUrl: string;

beforeAll(async () => {
  sim = await startResponsesSimulator();
  responsesUrl = `${sim.apiBaseUrl}/responses`;
});

afterAll(async () => {
  await sim.close();
});

const post = (body: unknown, headers: Record<string, string> = apiHeaders(sim)) => postJson(responsesUrl, body, headers);

async function stream(body: Record<string, unknown>) {
  const response = await post(body);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/event-stream');
  return readSse(response);
}

async function decode(b64: unknown) {
  return sharp(Buffer.from(String(b64), 'base64')).metadata();
}

describe('api lane: POST /v1/responses streaming', () => {
  it('follows the contract example order with increasing sequence numbers', async () => {
    const result = await stream(imageBody({ tool: { partial_images: 1 } }));
    expect(result.cut).toBe(false);
    expect(result.events.map((event) => event.event)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.image_generation_call.in_progress',
      'response.image_generation_call.generating',
      'response.image_generation_call.partial_image',
      'response.image_generation_call.completed',
      'response.output_item.done',
      'response.completed',
    ]);
    // Every frame's JSON repeats its type and carries sequence_number from 0.
    result.events.forEach((event, index) => {
      expect(event.data?.type).toBe(event.event);
      expect(event.data?.sequence_number).toBe(index);
    });
    const created = result.events[0].data!.response as Record<string, unknown>;
    expect(created).toMatchObject({ object: 'response', status: 'in_progress', model: 'lang-5.6-luna', output: [] });
    const added = result.events[2].data!;
    expect(added).toMatchObject({ output_index: 0, item: { type: 'image_generation_call', status: 'in_progress', result: null } });
    const itemId = (added.item as { id: string }).id;
    expect(itemId).toMatch(/^ig_/);
    expect(result.events[3].data).toMatchObject({ output_index: 0, item_id: itemId });
    const partial = result.events[5].data!;
    expect(partial).toMatchObject({
      item_id: itemId,
      partial_image_index: 0,
      output_format: 'png',
      size: '256x256',
      quality: 'low',
      background: 'opaque',
    });
    expect(await decode(partial.partial_image_b64)).toMatchObject({ format: 'png', width: 256, height: 256 });
    const done = result.events[7].data!.item as Record<string, unknown>;
    expect(done).toMatchObject({ id: itemId, type: 'image_generation_call', status: 'completed', output_format: 'png', size: '256x256' });
    expect(done.revised_prompt).toContain('red kite');
    expect(await decode(done.result)).toMatchObject({ format: 'png', width: 256, height: 256 });
    const completed = result.events[8].data!.response as Record<string, unknown>;
    expect(completed.status).toBe('completed');
    expect(completed.output).toEqual([done]);
    const usage = completed.usage as Record<string, number & Record<string, number>>;
    expect(usage.input_tokens).toBeGreaterThan(0);
    expect(usage.total_tokens).toBe(usage.input_tokens + usage.output_tokens);
    expect(usage.input_tokens_details).toEqual({ cached_tokens: 0 });
    expect(usage.output_tokens_details).toEqual({ reasoning_tokens: 0 });
  });

  it('sends exactly partial_images partials (0-based), reasoning first and a message when the model chose the tool', async () => {
    const result = await stream(
      imageBody({
        tool: { partial_images: 3 },
        toolChoice: 'auto',
        reasoning: { effort: 'low', summary: 'auto' },
        extra: { include: ['reasoning.encrypted_content'] },
      }),
    );
    const types = result.events.map((event) => event.event);
    const partials = result.events.filter((event) => event.event === 'response.image_generation_call.partial_image');
    expect(partials.map((event) => event.data?.partial_image_index)).toEqual([0, 1, 2]);
    // Drafts are previews of the requested size, the last one the finest.
    for (const event of partials) expect(await decode(event.data?.partial_image_b64)).toMatchObject({ width: 256, height: 256 });
    expect(types.indexOf('response.output_item.added')).toBeGreaterThanOrEqual(0);
    expect(types.indexOf('response.reasoning_summary_text.delta')).toBeGreaterThan(types.indexOf('response.output_item.added'));
    const doneItems = result.events
      .filter((event) => event.event === 'response.output_item.done')
      .map((event) => event.data as { output_index: number; item: Record<string, unknown> });
    expect(doneItems.map((done) => [done.output_index, done.item.type])).toEqual([
      [0, 'reasoning'],
      [1, 'image_generation_call'],
      [2, 'message'],
    ]);
    expect(doneItems[0].item.encrypted_content).toEqual(expect.any(String));
    const deltas = result.events.filter((event) => event.event === 'response.output_text.delta');
    expect(deltas.length).toBeGreaterThan(0);
    expect(deltas.every((event) => typeof event.data?.obfuscation === 'string')).toBe(true);
    const text = result.events.find((event) => event.event === 'response.output_text.done')!.data!.text;
    expect(deltas.map((event) => event.data?.delta).join('')).toBe(text);
    expect(types.at(-1)).toBe('response.completed');
    const usage = (result.events.at(-1)!.data!.response as { usage: { output_tokens_details: { reasoning_tokens: number } } }).usage;
    expect(usage.output_tokens_details.reasoning_tokens).toBeGreaterThan(0);
    const sequence = result.events.map((event) => event.data?.sequence_number);
    expect(sequence).toEqual(sequence.map((_, index) => index));
  });

  it('with partial_images 0 the image arrives only on output_item.done', async () => {
    const result = await stream(imageBody({ tool: { partial_images: 0 } }));
    expect(result.events.some((event) => event.event === 'response.image_generation_call.partial_image')).toBe(false);
    const done = result.events.find((event) => event.event === 'response.output_item.done')!;
    expect((done.data!.item as { result: string }).result.length).toBeGreaterThan(100);
  });

  it('omits obfuscation when stream_options.include_obfuscation is false', async () => {
    const result = await stream(imageBody({ toolChoice: 'none', extra: { stream_options: { include_obfuscation: false } } }));
    const deltas = result.events.filter((event) => event.event === 'response.output_text.delta');
    expect(deltas.length).toBeGreaterThan(0);
    expect(deltas.some((event) => 'obfuscation' in (event.data ?? {}))).toBe(false);
  });

  it('records a client abort mid-stream as an aborted upstream request', async () => {
    const controller = new AbortController();
    const response = await postJson(responsesUrl, imageBody({ prompt: 'slow one [sim:stall=5000]' }), apiHeaders(sim), controller.signal);
    const result = readSse(response, { stopAfter: 5 });
    await result;
    controller.abort();
    const entry = await sim.simulator.waitForRequest(
      (request) => request.route === RESPONSES_ROUTES.apiResponses && request.outcome !== 'completed',
    );
    expect(entry.outcome).toBe('client-aborted');
    expect(sim.simulator.openStreams()).toBe(0);
  });
});

describe('api lane: POST /v1/responses JSON', () => {
  it('answers the response object with the image result', async () => {
    const response = await post(imageBody({ stream: false, tool: { size: '512x768', output_format: 'webp', output_compression: 60 } }));
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
    expect(Number(response.headers.get('x-ratelimit-remaining-requests'))).toBeGreaterThanOrEqual(0);
    expect(response.headers.get('x-ratelimit-remaining-requests')).toMatch(/^\d+$/);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ object: 'response', status: 'completed', model: 'lang-5.6-luna', store: true });
    const [item] = body.output as Record<string, unknown>[];
    expect(item).toMatchObject({ type: 'image_generation_call', status: 'completed', output_format: 'webp', size: '512x768' });
    expect(await decode(item.result)).toMatchObject({ format: 'webp', width: 512, height: 768 });
  });

  it('renders flexible sizes on lang-image-2 and jpeg output', async () => {
    const response = await post(imageBody({ stream: false, tool: { size: '640x352', output_format: 'jpeg' } }));
    const item = ((await response.json()) as { output: Record<string, unknown>[] }).output[0];
    expect(await decode(item.result)).toMatchObject({ format: 'jpeg', width: 640, height: 352 });
  });

  it('answers auto size as 1024x1024', async () => {
    const response = await post(imageBody({ stream: false, tool: { size: 'auto', quality: 'auto' } }));
    const item = ((await response.json()) as { output: Record<string, unknown>[] }).output[0];
    expect(item).toMatchObject({ size: '1024x1024', quality: 'medium' });
    expect(await decode(item.result)).toMatchObject({ width: 1024, height: 1024 });
  });

  it('answers text only with tool_choice none, and JSON for a json_schema format', async () => {
    const plain = (await (await post(imageBody({ stream: false, toolChoice: 'none' }))).json()) as { output: Record<string, unknown>[] };
    expect(plain.output.map((item) => item.type)).toEqual(['message']);
    const schema = {
      type: 'object',
      properties: {
        prompt: { type: 'string' },
        tags: { type: 'array', items: { type: 'string' } },
        score: { type: 'integer', minimum: 1 },
      },
      required: ['prompt', 'tags', 'score'],
    };
    const structured = (await (
      await post({
        model: 'lang-5.6-luna',
        input: 'improve my prompt: a cat',
        text: { format: { type: 'json_schema', name: 'out', schema } },
      })
    ).json()) as {
      output: { content: { text: string }[] }[];
    };
    const parsed = JSON.parse(structured.output[0].content[0].text) as { prompt: string; tags: string[]; score: number };
    expect(typeof parsed.prompt).toBe('string');
    expect(Array.isArray(parsed.tags)).toBe(true);
    expect(parsed.score).toBe(1);
  });

  it('edits an input image and keeps stored responses for retrieve and follow-ups', async () => {
    const blue = await sharp({ create: { width: 64, height: 64, channels: 3, background: { r: 0, g: 0, b: 255 } } })
      .png()
      .toBuffer();
    const response = await post(
      imageBody({
        stream: false,
        prompt: 'add a hat',
        tool: { action: 'edit' },
        images: [`data:image/png;base64,${blue.toString('base64')}`],
      }),
    );
    expect(response.status).toBe(200);
    const body = (await response.json()) as { id: string; output: { id: string; result: string }[] };
    const retrieved = await fetch(`${sim.apiBaseUrl}/responses/${body.id}`, { headers: apiHeaders(sim) });
    expect(retrieved.status).toBe(200);
    const stored = (await retrieved.json()) as { output: { result: unknown }[] };
    expect(stored.output[0].result).toBeNull();
    // A follow-up can reference the earlier image call.
    const followUp = await post({
      ...imageBody({ stream: false, prompt: 'now make it night' }),
      input: [
        { type: 'image_generation_call', id: body.output[0].id },
        { role: 'user', content: 'now make it night' },
      ],
      previous_response_id: body.id,
    });
    expect(followUp.status).toBe(200);
    const cancel = await postJson(`${sim.apiBaseUrl}/responses/${body.id}/cancel`, {}, apiHeaders(sim));
    expect(cancel.status).toBe(400);
  });

  it('lists models for key checks', async () => {
    const response = await fetch(`${sim.apiBaseUrl}/models`, { headers: apiHeaders(sim) });
    const ids = ((await response.json()) as { data: { id: string }[] }).data.map((model) => model.id);
    expect(ids).toEqual(expect.arrayContaining(['lang-5.6-luna', 'lang-6-astra', 'lang-image-2']));
    expect((await fetch(`${sim.apiBaseUrl}/models/lang-image-1`, { headers: apiHeaders(sim) })).status).toBe(200);
    expect((await fetch(`${sim.apiBaseUrl}/models/nope`, { headers: apiHeaders(sim) })).status).toBe(404);
    expect((await fetch(`${sim.apiBaseUrl}/models`)).status).toBe(401);
  });
});

describe('api lane: request errors', () => {
  const expectError = async (response: Response, status: number, fields: Record<string, unknown>) => {
    expect(response.status).toBe(status);
    const body = (await response.json()) as { error: Record<string, unknown> };
    expect(body.error).toMatchObject(fields);
    expect(body.error.message).toEqual(expect.any(String));
  };

  it('401 without a key and with a wrong key, never echoing the key', async () => {
    await expectError(await post(imageBody(), {}), 401, { type: 'invalid_request_error' });
    const wrong = await post(imageBody(), { authorization: 'Bearer sk-wrong-key-1234567890' });
    expect(wrong.status).toBe(401);
    const text = await wrong.text();
    expect(text).toContain('invalid_api_key');
    expect(text).not.toContain('sk-wrong-key-1234567890');
    expect(sim.simulator.lastRequest()?.credentialFingerprint).toBe(fingerprintSecret('sk-wrong-key-1234567890'));
  });

  it('400 for a body that is not JSON and for a bad X-Client-Request-Id', async () => {
    const notJson = await fetch(responsesUrl, {
      method: 'POST',
      headers: { ...apiHeaders(sim), 'content-type': 'application/json' },
      body: '{nope',
    });
    await expectError(notJson, 400, { type: 'invalid_request_error' });
    await expectError(await post(imageBody(), { ...apiHeaders(sim), 'x-client-request-id': 'x'.repeat(600) }), 400, {
      code: 'invalid_client_request_id',
    });
  });

  it('validates the model', async () => {
    await expectError(await post({ ...imageBody(), model: undefined }), 400, { param: 'model', code: 'missing_required_parameter' });
    await expectError(await post(imageBody({ model: 'lang-9' })), 404, { code: 'model_not_found' });
    // Subscription-only ids are not api models.
    await expectError(await post(imageBody({ model: 'lang-6-luna' })), 404, { code: 'model_not_found' });
    await expectError(await post(imageBody({ tool: { model: 'lang-image-9' } })), 400, {
      param: 'tools[0].model',
      code: 'model_not_found',
    });
  });

  it.each([
    [{ size: '1000x1000' }, 'tools[0].size'],
    [{ size: '4096x2160' }, 'tools[0].size'],
    [{ size: '3840x1024' }, 'tools[0].size'],
    [{ model: 'lang-image-1', size: '640x352' }, 'tools[0].size'],
    [{ quality: 'ultra' }, 'tools[0].quality'],
    [{ output_format: 'gif' }, 'tools[0].output_format'],
    [{ output_format: 'jpeg', background: 'transparent' }, 'tools[0].background'],
    [{ output_compression: 101, output_format: 'jpeg' }, 'tools[0].output_compression'],
    [{ moderation: 'none' }, 'tools[0].moderation'],
    [{ partial_images: 4 }, 'tools[0].partial_images'],
    [{ action: 'edit' }, 'tools[0].action'],
  ])('rejects tool options %j (param %s)', async (tool, param) => {
    await expectError(await post(imageBody({ tool })), 400, { param, code: 'invalid_value' });
  });

  it('accepts the largest and the most extreme sizes of lang-image-2', async () => {
    for (const size of ['3840x2160', '1536x512']) {
      const response = await post(imageBody({ stream: false, tool: { size, quality: 'low' } }));
      expect(response.status).toBe(200);
      await response.arrayBuffer();
    }
  });

  it('rejects malformed tools, tool choice and input', async () => {
    await expectError(await post({ ...imageBody(), tools: [{ type: 'function' }] }), 400, {
      param: 'tools[0].name',
      code: 'missing_required_parameter',
    });
    await expectError(await post({ ...imageBody(), tools: [] }), 400, { param: 'tool_choice' });
    await expectError(await post({ ...imageBody(), input: undefined }), 400, { param: 'input' });
    await expectError(await post(imageBody({ images: ['data:image/png;base64,AAAA'] })), 400, { code: 'invalid_image' });
    await expectError(await post(imageBody({ images: ['data:text/plain;base64,AAAA'] })), 400, { code: 'invalid_image_format' });
    await expectError(await post(imageBody({ reasoning: { effort: 'huge' } })), 400, { param: 'reasoning.effort' });
    await expectError(await post({ ...imageBody(), previous_response_id: 'resp_missing' }), 400, { code: 'previous_response_not_found' });
    await expectError(await post({ ...imageBody(), background: true }), 400, { param: 'background' });
  });
});
