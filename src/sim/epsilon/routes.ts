import { setTimeout as delay } from 'node:timers/promises';
import type { ErrorAnswer, SimRequest, SimResponse } from '../harness.js';
import { renderImage } from '../image-renderer.js';
import { withComment } from './comment-chunk.js';
import { parsePromptTriggers } from '../prompt-triggers.js';
import { parseGenerateBody } from './parameters.js';
import type { EpsilonState } from './state.js';
import { buildZip, deflatedZeros, type ZipEntrySpec } from './zip-writer.js';

// `POST /ai/generate-image` answering a ZIP (contract §4), and the account
// routes `/user/data` and `/user/subscription` on the same host.

export const EPSILON_TRIGGERS = [
  'unauthorized',
  'subscription-required',
  'usage-exhausted',
  'ratelimit',
  'bad-request',
  'conflict',
  'server-error',
  'status-201',
  'json-body',
  'empty-body',
  'zip-encrypted',
  'zip-descriptor',
  'zip64',
  'zip-method',
  'zip-too-large',
  'zip-bomb',
  'zip-truncated',
  'zip-not-png',
  'zip-two-entries',
  'zip-crc',
  'slow',
] as const;
type Trigger = (typeof EPSILON_TRIGGERS)[number];

/** The vendor's error body (contract §5). */
export const errorBody = (status: number, message: string): unknown => ({ statusCode: status, message });

function bearer(request: SimRequest): string | undefined {
  return /^Bearer\s+(.+)$/i.exec(request.header('authorization') ?? '')?.[1]?.trim();
}

/** Refusals scripted by a trigger, in the vendor's shapes (some JSON with `message`, one `{error}`, one plain text). */
const REFUSALS: Partial<Record<Trigger, ErrorAnswer>> = {
  unauthorized: { status: 401, body: errorBody(401, 'Invalid accessToken.') },
  'subscription-required': { status: 402, body: errorBody(402, 'An active subscription is required to access this endpoint.') },
  'usage-exhausted': { status: 402, body: errorBody(402, 'Insufficient credits or training steps.') },
  ratelimit: { status: 429, body: errorBody(429, 'Concurrent generation is locked'), headers: { 'retry-after': '2' } },
  'bad-request': { status: 400, body: errorBody(400, 'Invalid parameters: prompt contains unsupported tokens.') },
  conflict: { status: 409, body: { error: 'A generation is already in progress for this account.' } },
  'server-error': { status: 500, body: 'Internal Server Error' },
};

/** The answer body for the picture, or a defective archive when a trigger asks. */
function archive(png: Buffer, has: (name: Trigger) => boolean): Buffer {
  const entry: ZipEntrySpec = { name: 'image_0.png', data: png };
  if (has('zip-encrypted')) return buildZip([{ ...entry, flags: 0x1, method: 0 }]);
  if (has('zip-descriptor')) return buildZip([{ ...entry, flags: 0x8 }]);
  if (has('zip64')) return buildZip([{ ...entry, zip64: true }]);
  if (has('zip-method')) return buildZip([{ ...entry, method: 12 }]);
  if (has('zip-too-large')) {
    const { compressed, size } = deflatedZeros();
    return buildZip([{ name: entry.name, data: Buffer.alloc(0), compressed, declaredSize: size, crc: 0 }]);
  }
  if (has('zip-bomb')) {
    // Declares a small PNG, inflates to 51 MiB of zeros.
    const { compressed } = deflatedZeros();
    return buildZip([{ name: entry.name, data: Buffer.alloc(0), compressed, declaredSize: png.length, crc: 0 }]);
  }
  if (has('zip-not-png')) return buildZip([{ name: 'image_0.png', data: Buffer.from('GIF89a not a png at all') }]);
  if (has('zip-two-entries')) return buildZip([entry, { ...entry, name: 'image_1.png' }]);
  if (has('zip-crc')) return buildZip([{ ...entry, crc: 0x12345678 }]);
  const zip = buildZip([entry]);
  // Cut inside the entry's data: the archive ends before its central directory.
  if (has('zip-truncated')) return zip.subarray(0, Math.floor(zip.length / 2));
  return zip;
}

export function registerEpsilonRoutes(state: EpsilonState): void {
  const { simulator } = state;

  simulator.route('POST', '/ai/generate-image', async (request: SimRequest, response: SimResponse) => {
    const token = bearer(request);
    if (!token || !state.accepts(token)) return response.json(401, errorBody(401, 'Invalid accessToken.'));
    if (request.bodyError) return response.json(400, errorBody(400, 'Body is not valid JSON.'));
    const parsed = parseGenerateBody(request.body);
    if (typeof parsed === 'string') return response.json(400, errorBody(400, parsed));
    const { triggers, cleaned } = parsePromptTriggers(parsed.prompt, EPSILON_TRIGGERS);
    const refusal = EPSILON_TRIGGERS.map((name) => (triggers.has(name) ? REFUSALS[name] : undefined)).find(Boolean);
    if (refusal) {
      // The account as it stood when it refused, for the client's subscription check.
      if (triggers.has('subscription-required')) state.nextSubscription = 'inactive';
      if (triggers.has('usage-exhausted')) state.nextSubscription = 'exhausted';
      const body = refusal.body;
      if (typeof body === 'string') return response.send(refusal.status, body, 'text/plain; charset=utf-8', refusal.headers);
      return response.json(refusal.status, body, refusal.headers);
    }
    const wait = triggers.has('slow') ? triggers.value('slow', 2000) : state.latencyMs;
    try {
      if (wait > 0) await delay(wait, undefined, { signal: request.signal });
    } catch {
      return; // The client left.
    }
    if (triggers.has('json-body'))
      return response.json(200, { statusCode: 200, message: 'Image generation queued; poll the stream endpoint.' });
    if (triggers.has('empty-body')) return response.send(200, Buffer.alloc(0), 'application/x-zip-compressed');
    const png = await renderImage({
      prompt: cleaned || 'image',
      width: parsed.width,
      height: parsed.height,
      format: 'png',
      background: parsed.straightAlpha ? 'transparent' : 'opaque',
    });
    return response.send(
      triggers.has('status-201') ? 201 : 200,
      archive(withComment(png, parsed), triggers.has),
      'application/x-zip-compressed',
    );
  });

  simulator.route('GET', '/user/data', (request, response) => {
    const token = bearer(request);
    if (!token || !state.accepts(token)) return response.json(401, errorBody(401, 'Invalid accessToken.'));
    return response.json(200, {
      priority: { maxPriorityActions: 1000 },
      subscription: state.subscription('active'),
      information: { emailVerified: true },
    });
  });

  simulator.route('GET', '/user/subscription', (request, response) => {
    const token = bearer(request);
    if (!token || !state.accepts(token)) return response.json(401, errorBody(401, 'Invalid accessToken.'));
    const standing = state.nextSubscription;
    state.nextSubscription = 'active';
    return response.json(200, state.subscription(standing));
  });
}
