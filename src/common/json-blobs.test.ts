import { describe, expect, it } from 'vitest';
import { parseJsonWithBlobs } from './json-blobs.js';

const image = Buffer.alloc(3000, 7).toString('base64');

describe('parseJsonWithBlobs', () => {
  it('keeps long values of the named keys as bytes and parses the rest', () => {
    const json = {
      type: 'response.completed',
      response: { output: [{ id: 'ig_1', result: image, revised_prompt: 'a kite' }], usage: { total_tokens: 3 } },
    };
    const { value, blobs } = parseJsonWithBlobs(Buffer.from(JSON.stringify(json)), ['result']);
    const parsed = value as typeof json;
    expect(parsed.response.usage.total_tokens).toBe(3);
    expect(parsed.response.output[0].revised_prompt).toBe('a kite');
    expect(parsed.response.output[0].result.length).toBeLessThan(20);
    expect(blobs.text(parsed.response.output[0].result)).toBe(image);
    expect(blobs.base64(parsed.response.output[0].result).equals(Buffer.alloc(3000, 7))).toBe(true);
  });

  it('leaves short values, other keys and look-alikes inside strings alone', () => {
    const text = JSON.stringify({ result: 'short', prompt: `say ,"result":"${image}"`, other: image });
    const { value, blobs } = parseJsonWithBlobs(Buffer.from(text), ['result']);
    expect(value).toEqual(JSON.parse(text));
    expect(blobs.bytesOf((value as { result: string }).result)).toBeUndefined();
  });

  it('reads spaced JSON, several blobs in order and escaped slashes', () => {
    const escaped = image.replace(/A/g, '\\/');
    const text = `{ "partial_image_b64" : "${image}", "result": "${escaped}", "n": 2 }`;
    const { value, blobs } = parseJsonWithBlobs(Buffer.from(text), ['result', 'partial_image_b64']);
    const parsed = value as { partial_image_b64: string; result: string; n: number };
    expect(parsed.n).toBe(2);
    expect(blobs.text(parsed.partial_image_b64)).toBe(image);
    expect(blobs.text(parsed.result)).toBe(image.replace(/A/g, '/'));
  });

  it('throws on malformed JSON like JSON.parse', () => {
    expect(() => parseJsonWithBlobs(Buffer.from(`{"result":"${image}`), ['result'])).toThrow(SyntaxError);
    expect(() => parseJsonWithBlobs(Buffer.from(`{"result":"${image}",}`), ['result'])).toThrow(SyntaxError);
  });
});
