import OpenAI, { toFile } from 'openai';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoStudio, type DemoStudio } from '../helpers/studio.js';

// The official `openai` SDK (v6) against a demo studio (`svc serve --demo`:
// every lane on its simulator), `baseURL` pointed at the studio's /v1.

let studio: DemoStudio;
let openai: OpenAI;

beforeAll(async () => {
  studio = await startDemoStudio('svc-openai-');
  // No token on a loopback studio: the SDK still sends some key, which is accepted.
  openai = new OpenAI({ baseURL: `${studio.url}/v1`, apiKey: 'any', maxRetries: 0, timeout: 60_000 });
});
afterAll(async () => {
  await studio?.stop();
});

const decode = async (b64: string | undefined) => sharp(Buffer.from(b64 ?? '', 'base64')).metadata();

interface HistoryItem {
  filename: string;
  provider: string;
  model: string;
  prompt: string;
  kind: string;
}
const history = async (): Promise<HistoryItem[]> =>
  ((await (await studio.request('/api/history')).json()) as { items: HistoryItem[] }).items;

/** A small opaque PNG to edit, and a mask of the same size (transparent = editable). */
async function editFiles() {
  const image = await sharp({ create: { width: 256, height: 256, channels: 3, background: '#3366cc' } })
    .png()
    .toBuffer();
  const mask = await sharp({ create: { width: 256, height: 256, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
    .png()
    .toBuffer();
  return { image: await toFile(image, 'photo.png', { type: 'image/png' }), mask: await toFile(mask, 'mask.png', { type: 'image/png' }) };
}

describe('the Bar', () => {
  it('images.generate on a gamma model returns a PNG that is then in history', async () => {
    const prompt = 'a lighthouse at dusk, openai sdk bar';
    const answer = await openai.images.generate({ model: 'gamma/gamma-image-2', prompt, size: '1024x1536' });
    expect(answer.data).toHaveLength(1);
    const { format, width, height } = await decode(answer.data?.[0].b64_json);
    expect({ format, width, height }).toEqual({ format: 'png', width: 1024, height: 1536 });
    // The fields as applied: gamma's default quality is medium.
    expect(answer).toMatchObject({ output_format: 'png', size: '1024x1536', quality: 'medium' });
    expect(answer.created).toBeGreaterThan(0);

    const saved = (await history()).find((item) => item.prompt === prompt);
    expect(saved).toMatchObject({ provider: 'gamma', model: 'gamma-image-2', kind: 'generate' });
    // The bytes answered are the file history holds.
    const file = Buffer.from(await (await studio.request(`/generated/${saved?.filename}`)).arrayBuffer());
    expect(file.equals(Buffer.from(answer.data?.[0].b64_json ?? '', 'base64'))).toBe(true);
  });

  it('a streamed generation yields partial images before the completed one', async () => {
    const stream = await openai.images.generate({
      model: 'api/lang-5.6-luna',
      prompt: 'a fox in snow, streamed',
      stream: true,
      partial_images: 2,
    });
    const events: OpenAI.Images.ImageGenStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    expect(events.map((event) => event.type)).toEqual([
      'image_generation.partial_image',
      'image_generation.partial_image',
      'image_generation.completed',
    ]);
    expect(events.slice(0, 2).map((event) => (event as OpenAI.Images.ImageGenPartialImageEvent).partial_image_index)).toEqual([0, 1]);
    for (const event of events) expect((await decode(event.b64_json)).width).toBeGreaterThan(0);
    const completed = events[2] as OpenAI.Images.ImageGenCompletedEvent;
    expect(completed).toMatchObject({ output_format: 'png', size: expect.stringMatching(/^\d+x\d+$/) });
    expect((await history()).some((item) => item.prompt === 'a fox in snow, streamed' && item.provider === 'api')).toBe(true);
  });
});

describe('images.edit', () => {
  it('edits an image with a mask, n: 2, answering URLs of the studio’s own files', async () => {
    const { image, mask } = await editFiles();
    const prompt = 'paint the sky orange, openai edit';
    const answer = await openai.images.edit({ model: 'api/lang-5.6-luna', image, mask, prompt, n: 2, response_format: 'url' });
    expect(answer.data).toHaveLength(2);
    for (const item of answer.data ?? []) {
      expect(item.url).toMatch(new RegExp(`^${studio.url}/generated/`));
      const response = await fetch(item.url as string);
      expect(response.status).toBe(200);
      expect((await sharp(Buffer.from(await response.arrayBuffer())).metadata()).width).toBeGreaterThan(0);
    }
    const saved = (await history()).filter((item) => item.prompt === prompt);
    expect(saved).toHaveLength(2);
  });

  it('streams an edit as image_edit events', async () => {
    const { image } = await editFiles();
    const stream = await openai.images.edit({
      model: 'api/lang-5.6-luna',
      image,
      prompt: 'add a moon, streamed edit',
      stream: true,
      partial_images: 1,
    });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    expect(types).toEqual(['image_edit.partial_image', 'image_edit.completed']);
  });

  it('takes several images as image[] (the first is edited, the rest are references)', async () => {
    const { image } = await editFiles();
    const second = await toFile(
      await sharp({ create: { width: 64, height: 64, channels: 3, background: '#cc3333' } })
        .png()
        .toBuffer(),
      'ref.png',
      { type: 'image/png' },
    );
    const answer = await openai.images.edit({
      model: 'gamma/gamma-image-2',
      image: [image, second],
      prompt: 'blend the two, openai multi-image',
    });
    expect((await decode(answer.data?.[0].b64_json)).format).toBe('png');
  });
});

describe('models and errors', () => {
  it('models.list() lists every lane’s models as <lane>/<model>, and the plain ids', async () => {
    const ids: string[] = [];
    for await (const model of openai.models.list()) {
      expect(model).toMatchObject({ object: 'model', owned_by: expect.any(String), created: expect.any(Number) });
      ids.push(model.id);
    }
    expect(ids).toEqual(
      expect.arrayContaining(['gamma/gamma-image-2', 'api/lang-5.6-luna', 'oauth/lang-6-luna', 'lang-6-luna', 'gamma-image-2']),
    );
    expect((await openai.models.retrieve('gamma/gamma-image-2')).owned_by).toBe('gamma');
  });

  it('an invalid request is a BadRequestError carrying the studio’s code', async () => {
    const error = await openai.images.generate({ model: 'gamma/gamma-image-2', prompt: 'x', n: 99 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error).toMatchObject({ status: 400, code: 'BAD_REQUEST', param: 'n', type: 'invalid_request_error' });

    const unknown = await openai.images.generate({ model: 'no-such-model', prompt: 'x' }).catch((caught: unknown) => caught);
    expect(unknown).toBeInstanceOf(OpenAI.BadRequestError);
    expect(unknown).toMatchObject({ code: 'INVALID_IMAGE_MODEL' });

    // A lane error from the planner: gamma has no mask edits.
    const { image, mask } = await editFiles();
    const laneError = await openai.images
      .edit({ model: 'gamma/gamma-image-2', image, mask, prompt: 'x' })
      .catch((caught: unknown) => caught);
    expect(laneError).toMatchObject({ status: 400, code: 'MASK_UNSUPPORTED' });
  });

  it('maps background to the lane option where the lane has it (gamma, api), else drops it with a warning', async () => {
    const answer = await openai.images.generate({
      model: 'gamma/gamma-image-2',
      prompt: 'a glass bottle, cut out',
      background: 'transparent',
      output_format: 'jpeg',
    });
    expect(answer).toMatchObject({ background: 'transparent', output_format: 'png' });
    expect((await decode(answer.data?.[0].b64_json)).hasAlpha).toBe(true);
    // Issue 46, item 5: the api lane's vendor contract takes background (and output_compression).
    const api = await openai.images.generate({ model: 'api/lang-5.6-luna', prompt: 'a glass bottle on api', background: 'transparent' });
    expect(api).toMatchObject({ background: 'transparent', output_format: 'png' });
    expect((api as { warnings?: unknown }).warnings).toBeUndefined();
    expect((await decode(api.data?.[0].b64_json)).hasAlpha).toBe(true);
    const { data: delta, response } = await openai.images
      .generate({ model: 'delta', prompt: 'a glass bottle on delta', background: 'transparent' })
      .withResponse();
    expect(delta).toMatchObject({ background: 'opaque', warnings: [{ type: 'unsupported', field: 'background', lane: 'delta' }] });
    expect(response.headers.get('x-svc-warnings')).toBe('background');
  });

  it('refuses another origin with the API’s rule, in OpenAI’s shape', async () => {
    const response = await studio.request('/v1/images/generations', {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'http://evil.example' },
      body: JSON.stringify({ prompt: 'x' }),
    });
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ error: { code: 'FORBIDDEN_ORIGIN', type: 'permission_error', param: null } });
  });

  it('answers an unknown /v1 route in OpenAI’s error shape', async () => {
    const response = await studio.request('/v1/images/variations', { method: 'POST' });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: { message: expect.any(String), type: 'not_found_error', param: null, code: 'ROUTE_NOT_FOUND' },
    });
  });
});

describe('jobs behind /v1', () => {
  it('is an ordinary studio job, named by the x-request-id header', async () => {
    const { data, response } = await openai.images.generate({ model: 'gamma', prompt: 'a job like any other' }).withResponse();
    const requestId = response.headers.get('x-request-id');
    expect((data as { _request_id?: string | null })._request_id).toBe(requestId);
    const job = (await (await studio.request(`/api/jobs/${requestId}`)).json()) as {
      kind: string;
      state: string;
      provider: string;
      model: string;
    };
    expect(job).toMatchObject({ kind: 'generate', state: 'succeeded', provider: 'gamma', model: 'gamma-image-2' });
  });

  it('a lane failure during a stream reaches the SDK as an APIError with the studio’s code', async () => {
    const stream = await openai.images.generate({ model: 'gamma/gamma-image-2', prompt: 'fails upstream [sim:failed]', stream: true });
    const error = await (async () => {
      for await (const _event of stream);
    })().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error).toMatchObject({ code: 'GAMMA_GENERATION_FAILED', type: 'api_error' });
  });

  it('a client that leaves a stream cancels its job', async () => {
    const { data: stream, response } = await openai.images
      .generate({ model: 'gamma/gamma-image-2', prompt: 'never finishes [sim:never]', stream: true })
      .withResponse();
    const requestId = response.headers.get('x-request-id');
    stream.controller.abort();
    let state = '';
    for (let attempt = 0; attempt < 100 && state !== 'cancelled'; attempt += 1) {
      state = ((await (await studio.request(`/api/jobs/${requestId}`)).json()) as { state: string }).state;
      if (state !== 'cancelled') await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(state).toBe('cancelled');
  });

  it('refuses a body of the wrong type, and an edit without its image, in OpenAI’s shape', async () => {
    const form = new FormData();
    form.set('prompt', 'x');
    const asForm = await studio.request('/v1/images/generations', { method: 'POST', body: form });
    expect(asForm.status).toBe(415);
    expect(await asForm.json()).toMatchObject({ error: { code: 'UNSUPPORTED_MEDIA_TYPE', type: 'invalid_request_error' } });

    const noImage = await studio.request('/v1/images/edits', { method: 'POST', body: form });
    expect(noImage.status).toBe(400);
    expect(await noImage.json()).toMatchObject({ error: { code: 'BAD_REQUEST', param: 'image' } });

    const asJson = await studio.request('/v1/images/edits', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'x' }),
    });
    expect(asJson.status).toBe(415);
  });
});

// Issue 46, items 2–5: what other OpenAI clients send (LangChain's style, Python's None, the newer
// safety_identifier) is accepted; what a lane cannot apply is dropped and told, in the body's
// `warnings` and the `x-svc-warnings` header, and the answer's fields are those that ran.
describe('what other OpenAI clients send', () => {
  const post = (body: Record<string, unknown>) =>
    studio.request('/v1/images/generations', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  interface Answer {
    data: { b64_json: string }[];
    quality?: string;
    output_format: string;
    background: string;
    warnings?: { type: string; field: string; lane: string }[];
    error?: unknown;
  }

  it('style (vivid) is accepted and reported as dropped', async () => {
    const response = await post({ model: 'gamma/gamma-image-2', prompt: 'a vivid parrot', style: 'vivid', safety_identifier: 'user-1234' });
    const body = (await response.json()) as Answer;
    expect(response.status, JSON.stringify(body)).toBe(200);
    expect(body.warnings).toEqual([{ type: 'unsupported', field: 'style', lane: 'gamma' }]);
    expect(response.headers.get('x-svc-warnings')).toBe('style');
  });

  it('null means absent on every optional field', async () => {
    const response = await post({
      model: 'gamma/gamma-image-2',
      prompt: 'a quiet pond',
      quality: null,
      size: null,
      n: null,
      background: null,
      output_format: null,
      style: null,
      user: null,
      response_format: null,
      moderation: null,
      output_compression: null,
      partial_images: null,
      stream: null,
    });
    const body = (await response.json()) as Answer;
    expect(response.status, JSON.stringify(body)).toBe(200);
    expect(body.data).toHaveLength(1);
    expect(body.warnings).toBeUndefined();
    expect(response.headers.get('x-svc-warnings')).toBeNull();
    expect((await post({ prompt: null })).status).toBe(400);
  });

  it('quality high and output_format png on delta: the answer says what ran, the warnings what was dropped, the job recorded them', async () => {
    const { data, response } = await openai.images
      .generate({ model: 'delta', prompt: 'a high quality kettle', quality: 'high', output_format: 'png' })
      .withResponse();
    const answer = data as typeof data & Answer;
    expect(answer.quality).toBeUndefined();
    expect(answer.output_format).toBe('jpeg');
    expect((await decode(answer.data?.[0].b64_json)).format).toBe('jpeg');
    expect(answer.warnings).toEqual([
      { type: 'unsupported', field: 'quality', lane: 'delta' },
      { type: 'unsupported', field: 'output_format', lane: 'delta' },
    ]);
    expect(response.headers.get('x-svc-warnings')).toBe('quality, output_format');
    const job = (await (await studio.request(`/api/jobs/${response.headers.get('x-request-id')}`)).json()) as {
      result: { warnings: { field: string }[] };
    };
    expect(job.result.warnings.map((warning) => warning.field)).toEqual(['quality', 'format']);
  });

  it('moderation on gamma and output_compression on gamma are dropped and told; output_compression reaches the api lane', async () => {
    const gamma = (await (
      await post({
        model: 'gamma/gamma-image-2',
        prompt: 'a moderated moth',
        moderation: 'low',
        output_compression: 40,
        output_format: 'webp',
      })
    ).json()) as Answer;
    expect(gamma.warnings?.map((warning) => warning.field).sort()).toEqual(['moderation', 'output_compression']);
    const response = await post({
      model: 'api/lang-5.6-luna',
      prompt: 'a compressed comet',
      output_compression: 40,
      output_format: 'jpeg',
    });
    const api = (await response.json()) as Answer;
    expect(response.status, JSON.stringify(api)).toBe(200);
    expect(api.warnings).toBeUndefined();
    const job = (await (await studio.request(`/api/jobs/${response.headers.get('x-request-id')}`)).json()) as {
      result: { settings: Record<string, unknown> };
    };
    expect(job.result.settings).toMatchObject({ outputCompression: 40, format: 'jpeg' });
  });

  it('a streamed generation carries the warnings header before its first event', async () => {
    const { response } = await openai.images
      .generate({ model: 'delta', prompt: 'a streamed teapot', quality: 'low', stream: true })
      .withResponse();
    expect(response.headers.get('x-svc-warnings')).toBe('quality');
  });
});
