import http from 'node:http';
import { readSse } from '../../src/common/events/client.js';
import { readSseFrames } from '../../src/common/events/sse-reader.js';

// The upstream call a minimal client makes itself: POST /responses on the
// simulator, every event parsed, the image decoded. The baseline of
// bench/generate and bench/load, and the floor gateway's own call.
// `callDirect` is written the usual way (fetch); `callDirectHttp` reads the
// same stream from node:http with a keep-alive agent, the transport the
// studio's upstream client uses (src/studio/upstream/transport.ts);
// `callDirectText` is the common client: fetch, the whole stream read as text,
// then its events split out.

interface ImageEvent {
  type: string;
  item?: { type: string; result?: string };
}

/** The image of one event, if it is the final image's. */
const imageOf = (event: ImageEvent): Buffer | undefined =>
  event.type === 'response.output_item.done' && event.item?.type === 'image_generation_call' && event.item.result
    ? Buffer.from(event.item.result, 'base64')
    : undefined;

const HEADERS = (apiKey: string) => ({
  'content-type': 'application/json',
  accept: 'text/event-stream',
  authorization: `Bearer ${apiKey}`,
});

/** The image of one streamed Responses call with `body`. */
export async function callDirect(apiBaseUrl: string, apiKey: string, body: unknown): Promise<Buffer> {
  const response = await fetch(`${apiBaseUrl}/responses`, { method: 'POST', headers: HEADERS(apiKey), body: JSON.stringify(body) });
  if (!response.ok || !response.body) throw new Error(`simulator answered ${response.status}`);
  let image: Buffer | undefined;
  for await (const message of readSse(response.body)) {
    const event = JSON.parse(message.data) as ImageEvent;
    image = imageOf(event) ?? image;
    if (event.type === 'response.completed') break;
  }
  if (!image) throw new Error('direct call returned no image');
  return image;
}

/** The same call as most clients make it: `response.text()`, then the SSE events of the text. */
export async function callDirectText(apiBaseUrl: string, apiKey: string, body: unknown): Promise<Buffer> {
  const response = await fetch(`${apiBaseUrl}/responses`, { method: 'POST', headers: HEADERS(apiKey), body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`simulator answered ${response.status}`);
  const text = await response.text();
  let image: Buffer | undefined;
  for (const block of text.split(/\r?\n\r?\n/)) {
    const data = block
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5))
      .join('\n');
    if (data) image = imageOf(JSON.parse(data) as ImageEvent) ?? image;
  }
  if (!image) throw new Error('direct call returned no image');
  return image;
}

const agent = new http.Agent({ keepAlive: true });

/** The same call over node:http (its connection kept for the next call). */
export async function callDirectHttp(apiBaseUrl: string, apiKey: string, body: unknown): Promise<Buffer> {
  const text = JSON.stringify(body);
  const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
    const request = http.request(
      `${apiBaseUrl}/responses`,
      { method: 'POST', headers: { ...HEADERS(apiKey), 'content-length': Buffer.byteLength(text) }, agent },
      resolve,
    );
    request.on('error', reject);
    request.end(text);
  });
  if (response.statusCode !== 200) throw new Error(`simulator answered ${response.statusCode}`);
  let image: Buffer | undefined;
  for await (const frame of readSseFrames(response.iterator({ destroyOnReturn: false }))) {
    const event = JSON.parse(frame.data.toString('utf8')) as ImageEvent;
    image = imageOf(event) ?? image;
    if (event.type === 'response.completed') break;
  }
  response.resume();
  if (!image) throw new Error('direct call returned no image');
  return image;
}
