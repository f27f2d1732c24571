import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { describe, expect, it } from 'vitest';
import { readSseFrames, SseEventTooLarge, type SseFrame } from './sse-reader.js';

// The byte-level reader against eventsource-parser (a string-level reference
// implementation of the same WHATWG rules) on random streams split at random.

async function* chunks(parts: readonly Uint8Array[]): AsyncGenerator<Uint8Array> {
  yield* parts;
}

async function frames(parts: readonly Uint8Array[], comments: string[] = [], retries: number[] = []): Promise<SseFrame[]> {
  const seen: SseFrame[] = [];
  for await (const frame of readSseFrames(chunks(parts), { onComment: (text) => comments.push(text), onRetry: (ms) => retries.push(ms) }))
    seen.push(frame);
  return seen;
}

function reference(text: string): { events: Array<{ id?: string; event?: string; data: string }>; comments: string[]; retries: number[] } {
  const events: Array<{ id?: string; event?: string; data: string }> = [];
  const comments: string[] = [];
  const retries: number[] = [];
  const parser = createParser({
    onEvent: ({ id, event, data }: EventSourceMessage) =>
      events.push({ data, ...(id !== undefined && { id }), ...(event !== undefined && { event }) }),
    onComment: (comment) => comments.push(comment),
    onRetry: (ms) => retries.push(ms),
  });
  // As the reader it replaced did: TextDecoder drops the BOM before the parser sees the text.
  parser.feed(new TextDecoder().decode(Buffer.from(text)));
  return { events, comments, retries };
}

/** A seeded generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const PIECES = [
  'data: ',
  'data:',
  'id: ',
  'event: ',
  'retry: 1500',
  ': ping',
  'é',
  '🎨',
  'x',
  'abc',
  '{"k":1}',
  'id: a\u0000b',
  'foo: bar',
  '\n',
  '\n',
  '\r\n',
  '\r',
];

describe('readSseFrames', () => {
  it('reads what the reference parser reads, on random streams split anywhere', async () => {
    const next = random(42);
    for (let round = 0; round < 300; round += 1) {
      const pieces = Array.from({ length: 5 + Math.floor(next() * 40) }, () => PIECES[Math.floor(next() * PIECES.length)]);
      // The stream ends with LF (not CR): the reference holds a final CR for an LF that may follow.
      const text = `${round % 5 === 0 ? '\uFEFF' : ''}${pieces.join('')}\n\n`;
      const bytes = Buffer.from(text);
      const parts: Uint8Array[] = [];
      for (let at = 0; at < bytes.length;) {
        const size = 1 + Math.floor(next() * 9);
        parts.push(Uint8Array.from(bytes.subarray(at, at + size)));
        at += size;
      }
      const comments: string[] = [];
      const retries: number[] = [];
      const seen = (await frames(parts, comments, retries)).map(({ data, ...rest }) => ({ ...rest, data: data.toString('utf8') }));
      const expected = reference(text);
      expect(seen, JSON.stringify(text)).toEqual(expected.events);
      expect(comments).toEqual(expected.comments);
      expect(retries).toEqual(expected.retries);
    }
  });

  it('gives a line inside one chunk as a view of that chunk, and joins a split line once', async () => {
    const image = 'A'.repeat(200_000);
    const body = Buffer.from(`event: image\ndata: ${image}\n\n`);
    const [whole] = await frames([body]);
    expect(whole.event).toBe('image');
    expect(whole.data.buffer).toBe(body.buffer);
    expect(whole.data.length).toBe(image.length);
    const split = await frames(
      Array.from({ length: Math.ceil(body.length / 65_536) }, (_, index) => body.subarray(index * 65_536, (index + 1) * 65_536)),
    );
    expect(split).toHaveLength(1);
    expect(split[0].data.toString('latin1')).toBe(image);
  });

  it('treats a CR at the end of a chunk and an LF at the start of the next as one line end', async () => {
    const seen = await frames([Buffer.from('data: a\r'), Buffer.from('\ndata: b\r'), Buffer.from('\n\r'), Buffer.from('\n')]);
    expect(seen.map((frame) => frame.data.toString())).toEqual(['a\nb']);
  });

  it('drops an event that never got its blank line', async () => {
    expect((await frames([Buffer.from('data: done\n\ndata: cut')])).map((frame) => frame.data.toString())).toEqual(['done']);
  });

  it('refuses an event, or a line still arriving, past maxEventBytes, and reads one at the limit', async () => {
    const read = async (parts: string[]) => {
      const seen: string[] = [];
      for await (const frame of readSseFrames(chunks(parts.map((part) => Buffer.from(part))), { maxEventBytes: 10 }))
        seen.push(frame.data.toString());
      return seen;
    };
    expect(await read(['data: 0123456789\n\n'])).toEqual(['0123456789']);
    await expect(read(['data: 01234', '56789', 'abcdef'])).rejects.toThrow(SseEventTooLarge);
    await expect(read(['data: 012345\ndata: 6789a\n\n'])).rejects.toThrow(SseEventTooLarge);
  });
});
