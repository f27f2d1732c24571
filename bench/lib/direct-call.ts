import { readSse } from '../../src/common/events/client.js';

// The upstream call a minimal client makes itself: POST /responses on the
// simulator, every event parsed, the image decoded. The baseline of
// bench/generate and bench/load, and the floor gateway's own call.

/** The image of one streamed Responses call with `body`. */
export async function callDirect(apiBaseUrl: string, apiKey: string, body: unknown): Promise<Buffer> {
  const response = await fetch(`${apiBaseUrl}/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${apiKey}` },
    body: JSON.stringify(body),
  });
  if (!response.ok || !response.body) throw new Error(`simulator answered ${response.status}`);
  let image: Buffer | undefined;
  for await (const message of readSse(response.body)) {
    const event = JSON.parse(message.data) as { type: string; item?: { type: string; result?: string } };
    if (event.type === 'response.output_item.done' && event.item?.type === 'image_generation_call' && event.item.result) image = Buffer.from(event.item.result, 'base64');
    if (event.type === 'response.completed') break;
  }
  if (!image) throw new Error('direct call returned no image');
  return image;
}
