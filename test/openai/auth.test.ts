import OpenAI from 'openai';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemo } from '../../src/demo/demo.js';
import { makeTempHome, startTestStudio, type TestStudio } from '../helpers/studio.js';

// /v1 under the studio's token rule: the SDK's `apiKey` is the studio's token
// (`Authorization: Bearer`), and a refusal is in OpenAI's shape.

const TOKEN = 'studio-token-for-openai-sdk-test';
let studio: TestStudio;

beforeAll(async () => {
  const home = makeTempHome('svc-openai-token-');
  const demo = await startDemo({ SVC_HOME: home });
  studio = await startTestStudio({ env: { SVC_HOME: home }, demo: demo.options, onClose: () => demo.close(), token: TOKEN });
});
afterAll(async () => {
  await studio?.stop();
});

const client = (apiKey: string) => new OpenAI({ baseURL: `${studio.url}/v1`, apiKey, maxRetries: 0, timeout: 60_000 });

describe('a token-protected studio', () => {
  it('serves the SDK whose apiKey is the token', async () => {
    const answer = await client(TOKEN).images.generate({
      model: 'gamma/gamma-image-2',
      prompt: 'a key under a doormat',
      size: '1024x1024',
    });
    const { width, height } = await sharp(Buffer.from(answer.data?.[0].b64_json ?? '', 'base64')).metadata();
    expect({ width, height }).toEqual({ width: 1024, height: 1024 });
  });

  it('refuses another key as an AuthenticationError with the studio’s code', async () => {
    const error = await client('not-the-token')
      .images.generate({ model: 'gamma/gamma-image-2', prompt: 'x' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(error).toMatchObject({ status: 401, code: 'TOKEN_REQUIRED', type: 'authentication_error' });
    const list = await client('not-the-token')
      .models.list()
      .catch((caught: unknown) => caught);
    expect(list).toBeInstanceOf(OpenAI.AuthenticationError);
  });

  it('answers image URLs that need the same token', async () => {
    const answer = await client(TOKEN).images.generate({ model: 'gamma/gamma-image-2', prompt: 'a lock', response_format: 'url' });
    const url = answer.data?.[0].url as string;
    expect((await fetch(url)).status).toBe(401);
    expect((await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
  });
});
