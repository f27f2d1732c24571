import { createSign } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBetaSimulator, type BetaSimulator } from '../../src/sim/beta/simulator.js';
import { fingerprintSecret } from '../../src/sim/harness.js';

// The `:generateContent` simulator on its own, as a client of the vendor sees
// it: the body rules of each surface, the answer shapes, the error bodies and
// the token endpoint's checks (contract §3–§8).

let sim: BetaSimulator;
beforeAll(async () => {
  sim = await startBetaSimulator();
});
afterAll(async () => {
  await sim?.close();
});

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${sim.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
const keyed = (model: string, body: unknown) => post(`/v1beta/models/${model}:generateContent`, body, { 'x-goog-api-key': sim.apiKey });
const prompt = (text: string, generationConfig: Record<string, unknown> = {}) => ({
  contents: [{ role: 'user', parts: [{ text }] }],
  generationConfig,
});

interface Status {
  error: { code: number; message: string; status: string; details?: Record<string, unknown>[] };
}

/** A JWT-bearer assertion signed as contract §8 says (here by hand, to vary every claim). */
function assertion(claims: Record<string, unknown>, key = sim.serviceAccount.private_key): string {
  const now = Math.floor(Date.now() / 1000);
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const unsigned = `${encode({ alg: 'RS256', typ: 'JWT', kid: sim.serviceAccount.private_key_id })}.${encode({
    iss: sim.serviceAccount.client_email,
    scope: 'https://www.googleapis.com/auth/cloud-platform',
    aud: sim.tokenUrl,
    iat: now,
    exp: now + 3600,
    ...claims,
  })}`;
  return `${unsigned}.${createSign('RSA-SHA256').update(unsigned).sign(key).toString('base64url')}`;
}

const exchange = (jwt: string, grant = 'urn:ietf:params:oauth:grant-type:jwt-bearer') =>
  fetch(sim.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: grant, assertion: jwt }),
  });

describe('key surface', () => {
  it('answers inline image parts after a text part, with finishReason, usage and modelVersion; ?key= works too', async () => {
    const response = await post(
      `/v1beta/models/beta-3.1-flash-image:generateContent?key=${sim.apiKey}`,
      prompt('a red kite', { imageConfig: { aspectRatio: '9:16', imageSize: '512' } }),
    );
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      candidates: { content: { parts: { text?: string; inlineData?: { mimeType: string; data: string } }[] }; finishReason: string }[];
      usageMetadata: { candidatesTokenCount: number; promptTokenCount: number };
      modelVersion: string;
    };
    const [candidate] = body.candidates;
    expect(candidate.finishReason).toBe('STOP');
    expect(candidate.content.parts[0].text).toContain('a red kite');
    const image = candidate.content.parts[1].inlineData;
    expect(image?.mimeType).toBe('image/png');
    expect(await sharp(Buffer.from(image?.data ?? '', 'base64')).metadata()).toMatchObject({ width: 384, height: 688 });
    expect(body.modelVersion).toBe('beta-3.1-flash-image');
    expect(body.usageMetadata.candidatesTokenCount).toBeGreaterThan(700);
    // A key in the query is a credential like a header: masked in the log, known by its fingerprint.
    const logged = sim.simulator.lastRequest({ route: 'POST /v1beta/models/:modelAction' });
    expect(logged?.query.key).not.toBe(sim.apiKey);
    expect(logged?.credentialFingerprint).toBe(fingerprintSecret(sim.apiKey));
  });

  it('refuses what the vendor refuses: 512 on the pro model, extreme ratios off 3.1 flash, cloud-only fields, lowercase k, unknown fields', async () => {
    const cases: [string, unknown, string][] = [
      ['beta-3-pro-image', prompt('x', { imageConfig: { imageSize: '512' } }), 'Unsupported image size'],
      ['beta-3-pro-image', prompt('x', { imageConfig: { aspectRatio: '1:8' } }), 'Unsupported aspect ratio'],
      ['beta-3.1-flash-image', prompt('x', { imageConfig: { personGeneration: 'ALLOW_ALL' } }), 'not supported in Gemini API'],
      ['beta-3.1-flash-image', prompt('x', { imageConfig: { imageSize: '2k' } }), 'Unsupported image size'],
      ['beta-2.5-flash-image', prompt('x', { imageConfig: { imageSize: '1K' } }), 'imageSize is not supported'],
      ['beta-3.1-flash-image', { ...prompt('x'), response_format: 'b64' }, 'Unknown name "response_format"'],
    ];
    for (const [model, body, says] of cases) {
      const response = await keyed(model, body);
      const answer = (await response.json()) as Status;
      expect({ status: response.status, code: answer.error.status, says: answer.error.message.includes(says) }).toEqual({
        status: 400,
        code: 'INVALID_ARGUMENT',
        says: true,
      });
    }
    // The extreme ratios are the 3.1 flash model's.
    expect((await keyed('beta-3.1-flash-image', prompt('x', { imageConfig: { aspectRatio: '1:8', imageSize: '512' } }))).status).toBe(200);
  });

  it("answers the vendor's error bodies: bad key (ErrorInfo), no key (403), unknown model (404), 429 with RetryInfo", async () => {
    const bad = (await (
      await post('/v1beta/models/beta-3.1-flash-image:generateContent', prompt('x'), { 'x-goog-api-key': 'nope' })
    ).json()) as Status;
    expect(bad.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT', details: [{ reason: 'API_KEY_INVALID' }] });
    expect((await post('/v1beta/models/beta-3.1-flash-image:generateContent', prompt('x'))).status).toBe(403);
    const missing = (await (await keyed('beta-9-image', prompt('x'))).json()) as Status;
    expect(missing.error).toMatchObject({ code: 404, status: 'NOT_FOUND' });
    const limited = (await (await keyed('beta-3.1-flash-image', prompt('x [sim:ratelimit=5]'))).json()) as Status;
    expect(limited.error.details?.map((detail) => detail['@type'])).toEqual([
      'type.googleapis.com/google.rpc.QuotaFailure',
      'type.googleapis.com/google.rpc.Help',
      'type.googleapis.com/google.rpc.RetryInfo',
    ]);
    expect(limited.error.details?.[2]).toMatchObject({ retryDelay: '5s' });
  });

  it('prompt-level and candidate-level blocks are 200s without an image', async () => {
    const prompted = (await (await keyed('beta-3.1-flash-image', prompt('x [sim:block-prompt]'))).json()) as Record<string, unknown>;
    expect(prompted.candidates).toBeUndefined();
    expect(prompted.promptFeedback).toMatchObject({ blockReason: 'PROHIBITED_CONTENT' });
    const filtered = (await (await keyed('beta-3.1-flash-image', prompt('x [sim:block-image]'))).json()) as {
      candidates: Record<string, unknown>[];
    };
    expect(filtered.candidates[0]).toMatchObject({ finishReason: 'IMAGE_SAFETY' });
    expect(filtered.candidates[0].content).toBeUndefined();
  });

  it('lists its models for a key', async () => {
    const list = (await (await fetch(`${sim.url}/v1beta/models`, { headers: { 'x-goog-api-key': sim.apiKey } })).json()) as {
      models: { name: string }[];
    };
    expect(list.models.map((model) => model.name)).toContain('models/beta-3-pro-image');
  });
});

describe('token endpoint and cloud surface', () => {
  it('mints a token for a well-signed assertion; the cloud surface takes it for its project only', async () => {
    const response = await exchange(assertion({}));
    expect(response.status).toBe(200);
    const token = (await response.json()) as { access_token: string; expires_in: number; token_type: string };
    expect(token).toMatchObject({ access_token: expect.stringMatching(/^ya29\.c\./), expires_in: 3599, token_type: 'Bearer' });
    const path = (project: string) =>
      `/v1/projects/${project}/locations/global/publishers/google/models/beta-3.1-flash-image:generateContent`;
    expect((await post(path('sim-project'), prompt('x'), { authorization: `Bearer ${token.access_token}` })).status).toBe(200);
    expect((await post(path('other'), prompt('x'), { authorization: `Bearer ${token.access_token}` })).status).toBe(403);
    const unauthenticated = (await (
      await post(path('sim-project'), prompt('x'), { authorization: 'Bearer ya29.c.forged' })
    ).json()) as Status;
    expect(unauthenticated.error).toMatchObject({ code: 401, status: 'UNAUTHENTICATED' });
    // The cloud surface requires a role on each content, and has no 512 tier.
    expect(
      (await post(path('sim-project'), { contents: [{ parts: [{ text: 'x' }] }] }, { authorization: `Bearer ${token.access_token}` }))
        .status,
    ).toBe(400);
    expect(
      (
        await post(path('sim-project'), prompt('x', { imageConfig: { imageSize: '512' } }), {
          authorization: `Bearer ${token.access_token}`,
        })
      ).status,
    ).toBe(400);
  });

  it('refuses a bad signature, a long-lived or stale assertion, a wrong scope, audience or grant type', async () => {
    const now = Math.floor(Date.now() / 1000);
    const tampered = assertion({}).replace(/\.[^.]+$/, '.AAAA');
    const cases: [string, string, string][] = [
      [tampered, 'invalid_grant', 'Invalid JWT Signature.'],
      [assertion({ exp: now + 7200 }), 'invalid_grant', 'short-lived'],
      [assertion({ iat: now - 7200, exp: now - 3600 }), 'invalid_grant', 'short-lived'],
      [assertion({ scope: 'https://www.googleapis.com/auth/drive' }), 'invalid_scope', 'scope'],
      [assertion({ aud: 'https://example.com/token' }), 'invalid_grant', 'audience'],
      [assertion({ iss: 'ghost@sim-project.iam.gserviceaccount.com' }), 'invalid_grant', 'account not found'],
    ];
    for (const [jwt, error, says] of cases) {
      const response = await exchange(jwt);
      const body = (await response.json()) as { error: string; error_description: string };
      expect({ status: response.status, error: body.error, says: body.error_description.includes(says) }).toEqual({
        status: 400,
        error,
        says: true,
      });
    }
    const grant = (await (await exchange(assertion({}), 'client_credentials')).json()) as { error: string };
    expect(grant.error).toBe('unsupported_grant_type');
  });
});
