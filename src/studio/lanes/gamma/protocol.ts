import { z } from 'zod';
import { lazy } from '../../../common/lazy.js';

// The gamma vendor's protocol facts (contract: gamma-async-prediction-images),
// declared once: the two upstream models, the controls' values, the polling
// schedule and the size limit of an output; and the readers of its answers,
// which put an id, a status or an output in several places (§2–4).

/** The upstream model ids: text-to-image without references, edit with 1–10 (§3). */
export const GAMMA_UPSTREAM_MODELS = { textToImage: 'lang/lang-image-2/text-to-image', edit: 'lang/lang-image-2/edit' } as const;

export const GAMMA_QUALITIES = ['low', 'medium', 'high'] as const;
export const GAMMA_BACKGROUNDS = ['auto', 'opaque', 'transparent'] as const;
export const GAMMA_DEFAULTS = { quality: 'medium', size: '1024x1024', background: 'auto' } as const;

/**
 * Waits between polls: short at first (most answers are quick to check and a
 * restarted studio finds a finished prediction at once), then the source's 3 s.
 */
export const GAMMA_POLL_INTERVALS_MS = [250, 500, 1000, 2000, 3000] as const;

/** Largest output image downloaded. */
export const GAMMA_OUTPUT_MAX_BYTES = 50 * 1024 * 1024;

const asRecord = (value: unknown): Record<string, unknown> | undefined =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
const text = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined);

/** Any JSON object: the answers are read field by field below, tolerating where each sits. */
export const jsonObject = lazy(() => z.record(z.string(), z.unknown()));
export type JsonObject = z.infer<typeof jsonObject>;

/** The temporary URL of an upload: top-level `url`, or `data` as a string or an object holding it (§2). */
export function uploadUrlOf(body: JsonObject): string | undefined {
  const data = body.data;
  const inner = asRecord(data);
  const url = text(body.url) ?? text(data) ?? text(inner?.url) ?? text(inner?.image) ?? text(inner?.image_url) ?? text(inner?.download_url);
  return url?.startsWith('http') ? url : undefined;
}

/** The prediction id of a submit answer: `data.id`, `data.request_id`, `id`, `request_id`, `predictionId` (§3). */
export function predictionIdOf(body: JsonObject): string | undefined {
  const data = asRecord(body.data);
  return (
    text(data?.id) ??
    text(data?.request_id) ??
    text(body.id) ??
    text(body.request_id) ??
    text(body.predictionId) ??
    text(data?.predictionId)
  );
}

export type PredictionState = 'running' | 'done' | 'failed';

/** §4: `completed`/`succeeded`/`success` done; `failed`/`error`/`canceled` failed; anything else keeps polling. */
export function stateOf(status: string | undefined): PredictionState {
  if (status === 'completed' || status === 'succeeded' || status === 'success') return 'done';
  if (status === 'failed' || status === 'error' || status === 'canceled' || status === 'cancelled') return 'failed';
  return 'running';
}

/** An image output: a URL to fetch, or the bytes themselves (a data URI or bare base64). */
export type GammaOutput = { readonly kind: 'url'; readonly url: string } | { readonly kind: 'inline'; readonly base64: string };

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

function outputFrom(value: unknown): GammaOutput | undefined {
  if (Array.isArray(value)) return value.length ? outputFrom(value[0]) : undefined;
  const record = asRecord(value);
  if (record) return outputFrom(record.url ?? record.image ?? record.image_url ?? record.download_url ?? record.b64_json);
  const found = text(value);
  if (!found) return undefined;
  const dataUri = /^data:[^;,]*;base64,(.*)$/s.exec(found);
  if (dataUri) return { kind: 'inline', base64: dataUri[1] };
  if (/^https?:\/\//i.test(found)) return { kind: 'url', url: found };
  return BASE64.test(found) ? { kind: 'inline', base64: found } : undefined;
}

/** What a poll says: the status (lower-case), the output once there is one, the failure text, the model. */
export interface PollReading {
  readonly status: string | undefined;
  readonly output: GammaOutput | undefined;
  readonly reason: string | undefined;
  readonly model: string | undefined;
}

export function readPoll(body: JsonObject): PollReading {
  const data = asRecord(body.data) ?? {};
  const status = (text(data.status) ?? text(body.status))?.toLowerCase();
  const output =
    outputFrom(data.outputs) ??
    outputFrom(data.output) ??
    outputFrom(data.result) ??
    outputFrom(body.outputs) ??
    outputFrom(body.output) ??
    outputFrom(body.result);
  return {
    status,
    output,
    reason: text(data.error) ?? text(data.message) ?? text(body.error) ?? text(body.message),
    model: text(data.model),
  };
}

/** The vendor's error bodies: `{code, message, data}`, the reason sometimes in `data.error` (§5). */
export function parseGammaError(body: string): { message?: string } {
  try {
    const root = asRecord(JSON.parse(body));
    const message = text(root?.message) ?? text(asRecord(root?.data)?.error) ?? text(root?.error);
    if (message) return { message };
  } catch {
    // Plain text: below.
  }
  return { message: body.trim().slice(0, 200) || undefined };
}
