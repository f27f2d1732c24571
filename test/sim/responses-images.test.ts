import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startResponsesSimulator, type ResponsesSimulator } from '../../src/sim/responses-simulator.js';
import { apiHeaders } from './responses-fixtures.js';
import { postJson, readSse } from './sse-client.js';

let sim: ResponsesSimulator;
let pngA: Buffer;
let pngB: Buffer;

beforeAll(async () => {
  sim = await startResponsesSimulator();
  pngA = await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 255, g: 0, b: 0 } } })
    .png()
    .toBuffer();
  pngB = await sharp({ create: { width: 32, height: 32, channels: 3, background: { r: 0, g: 255, b: 0 } } })
    .webp()
    .toBuffer();
});

afterAll(async () => {
  await sim.close();
});

const generations = (body: unknown) => postJson(`${sim.apiBaseUrl}/images/generations`, body, apiHeaders(sim));

function editForm(fields: Record<string, string>, files: { name: string; data: Buffer; filename: string; type: string }[]): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  for (const file of files) form.append(file.name, new Blob([new Uint8Array(file.data)], { type: file.type }), file.filename);
  return form;
}

const edits = (form: FormData) => fetch(`${sim.apiBaseUrl}/images/edits`, { method: 'POST', headers: apiHeaders(sim), body: form });

describe('POST /v1/images/generations', () => {
  it('answers the images body with n images and usage', async () => {
    const response = await generations({
      prompt: 'two red apples',
      model: 'lang-image-2',
      n: 2,
      size: '256x256',
      quality: 'high',
      output_format: 'jpeg',
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { created: number; data: { b64_json: string }[]; usage: Record<string, unknown> } & Record<
      string,
      unknown
    >;
    expect(body).toMatchObject({ background: 'opaque', output_format: 'jpeg', quality: 'high', size: '256x256' });
    expect(body.data).toHaveLength(2);
    expect(body.data[0].b64_json).not.toBe(body.data[1].b64_json);
    for (const item of body.data)
      expect(await sharp(Buffer.from(item.b64_json, 'base64')).metadata()).toMatchObject({ format: 'jpeg', width: 256, height: 256 });
    expect(body.usage).toMatchObject({
      input_tokens_details: { text_tokens: expect.any(Number), image_tokens: 0 },
      output_tokens_details: { image_tokens: expect.any(Number), text_tokens: 0 },
    });
  });

  it('streams partial images then the completed image', async () => {
    const response = await generations({ prompt: 'a yellow star', size: '256x256', stream: true, partial_images: 2 });
    const result = await readSse(response);
    expect(result.events.map((event) => event.event)).toEqual([
      'image_generation.partial_image',
      'image_generation.partial_image',
      'image_generation.completed',
    ]);
    expect(result.events.map((event) => event.data?.partial_image_index)).toEqual([0, 1, undefined]);
    const completed = result.events[2].data!;
    expect(completed).toMatchObject({
      type: 'image_generation.completed',
      size: '256x256',
      output_format: 'png',
      usage: expect.any(Object),
      created_at: expect.any(Number),
    });
    expect(await sharp(Buffer.from(String(completed.b64_json), 'base64')).metadata()).toMatchObject({ width: 256, height: 256 });
  });

  it.each([
    [{}, 'prompt'],
    [{ prompt: 'x', n: 11 }, 'n'],
    [{ prompt: 'x', response_format: 'url' }, 'response_format'],
    [{ prompt: 'x', size: '100x100' }, 'size'],
    [{ prompt: 'x', partial_images: 5 }, 'partial_images'],
    [{ prompt: 'x'.repeat(32_001) }, 'prompt'],
  ])('rejects %j on param %s', async (body, param) => {
    const response = await generations(body);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { param: string } }).error.param).toBe(param);
  });

  it('answers 404 for an unknown image model', async () => {
    const response = await generations({ prompt: 'x', model: 'lang-image-7' });
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('model_not_found');
  });
});

describe('POST /v1/images/edits (multipart)', () => {
  it('edits repeated image[] parts with a mask', async () => {
    const mask = await sharp({ create: { width: 64, height: 48, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
      .png()
      .toBuffer();
    const form = editForm(
      {
        prompt: 'add a bow',
        model: 'lang-image-2',
        size: '512x512',
        n: '1',
        output_format: 'webp',
        output_compression: '70',
        input_fidelity: 'high',
      },
      [
        { name: 'image[]', data: pngA, filename: 'a.png', type: 'image/png' },
        { name: 'image[]', data: pngB, filename: 'b.webp', type: 'image/webp' },
        { name: 'mask', data: mask, filename: 'mask.png', type: 'image/png' },
      ],
    );
    const response = await edits(form);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { data: { b64_json: string }[]; usage: { input_tokens_details: { image_tokens: number } } };
    expect(await sharp(Buffer.from(body.data[0].b64_json, 'base64')).metadata()).toMatchObject({ format: 'webp', width: 512, height: 512 });
    expect(body.usage.input_tokens_details.image_tokens).toBeGreaterThan(0);
    expect(sim.simulator.lastRequest()?.body).toMatchObject({
      fields: { prompt: 'add a bow' },
      files: [{ name: 'image[]' }, { name: 'image[]' }, { name: 'mask' }],
    });
  });

  it('streams image_edit events', async () => {
    const form = editForm({ prompt: 'make it night', size: '256x256', stream: 'true', partial_images: '1' }, [
      { name: 'image', data: pngA, filename: 'a.png', type: 'image/png' },
    ]);
    const result = await readSse(await edits(form));
    expect(result.events.map((event) => event.event)).toEqual(['image_edit.partial_image', 'image_edit.completed']);
  });

  it('rejects bad edits', async () => {
    const noImage = await edits(editForm({ prompt: 'x' }, []));
    expect(noImage.status).toBe(400);
    expect(((await noImage.json()) as { error: { param: string } }).error.param).toBe('image');

    const notImage = await edits(
      editForm({ prompt: 'x' }, [{ name: 'image', data: Buffer.from('hello'), filename: 'a.txt', type: 'text/plain' }]),
    );
    expect(((await notImage.json()) as { error: { code: string } }).error.code).toBe('invalid_image_format');

    const badMask = await edits(
      editForm({ prompt: 'x' }, [
        { name: 'image', data: pngA, filename: 'a.png', type: 'image/png' },
        {
          name: 'mask',
          data: await sharp({ create: { width: 10, height: 10, channels: 4, background: '#0000' } })
            .png()
            .toBuffer(),
          filename: 'm.png',
          type: 'image/png',
        },
      ]),
    );
    expect(((await badMask.json()) as { error: { param: string } }).error.param).toBe('mask');

    const noPrompt = await edits(editForm({}, [{ name: 'image', data: pngA, filename: 'a.png', type: 'image/png' }]));
    expect(((await noPrompt.json()) as { error: { param: string } }).error.param).toBe('prompt');

    const json = await postJson(`${sim.apiBaseUrl}/images/edits`, { prompt: 'x' }, apiHeaders(sim));
    expect(json.status).toBe(400);
    expect(((await json.json()) as { error: { code: string } }).error.code).toBe('invalid_content_type');

    const unauthorized = await fetch(`${sim.apiBaseUrl}/images/edits`, { method: 'POST', body: editForm({ prompt: 'x' }, []) });
    expect(unauthorized.status).toBe(401);
  });
});
