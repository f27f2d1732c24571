import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MULTIPART_LIMITS, MultipartError, formFields, parseMultipart } from '../../src/common/multipart.js';
import { startTestStudio, type TestStudio } from '../helpers/studio.js';

// Issue 45 item 2: 40,000 repeats of one text field held the loop 19 s
// (a quadratic field lookup). The parser is one pass, bounds its parts and
// each part's head, and refuses a repeated field that is not an array field.

const BOUNDARY = 'xyzzy';
const part = (name: string, value: string, filename?: string) =>
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"${filename ? `; filename="${filename}"` : ''}\r\n${filename ? 'Content-Type: image/png\r\n' : ''}\r\n${value}\r\n`;
const body = (parts: string[]) => Buffer.from(`${parts.join('')}--${BOUNDARY}--\r\n`);

describe('parseMultipart', () => {
  it('refuses a repeated field that is not an array field, and keeps each value of an array field', () => {
    expect(() => parseMultipart(body([part('prompt', 'a'), part('prompt', 'b')]), BOUNDARY)).toThrow(/"prompt" is sent twice/);
    const form = parseMultipart(body([part('tag[]', 'a'), part('tag[]', 'b'), part('prompt', 'p')]), BOUNDARY);
    expect(form.fields.map((field) => field.value)).toEqual(['a', 'b', 'p']);
    expect(formFields(form)).toEqual({ 'tag[]': 'b', prompt: 'p' });
  });

  it('takes up to MULTIPART_LIMITS.maxParts parts and refuses one more', () => {
    const names = (count: number) => Array.from({ length: count }, (_, index) => part(`f${index}`, 'v'));
    expect(parseMultipart(body(names(MULTIPART_LIMITS.maxParts)), BOUNDARY).fields).toHaveLength(MULTIPART_LIMITS.maxParts);
    expect(() => parseMultipart(body(names(MULTIPART_LIMITS.maxParts + 1)), BOUNDARY)).toThrow(MultipartError);
    expect(() => parseMultipart(body(names(40_000)), BOUNDARY)).toThrow(/at most 256 parts/);
  });

  it('refuses a part head over its bound without searching the rest of the body for its end', () => {
    const longHead = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="a"\r\nX-Pad: ${'p'.repeat(MULTIPART_LIMITS.maxHeadBytes)}\r\n\r\nv\r\n`;
    expect(() => parseMultipart(body([longHead]), BOUNDARY)).toThrow(/head is over/);
    expect(() => parseMultipart(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="a"`), BOUNDARY)).toThrow(
      /no header end/,
    );
  });
});

describe('POST /v1/images/edits with many fields', () => {
  let studio: TestStudio;
  beforeAll(async () => {
    studio = await startTestStudio();
  });
  afterAll(async () => {
    await studio?.stop();
  });

  it('answers 40,000 repeats of one text field (2.4 MB) with a 400 naming the field', async () => {
    const parts = [part('image', 'PNGDATA', 'photo.png'), ...Array.from({ length: 40_000 }, () => part('prompt', 'x'.repeat(20)))];
    const sent = body(parts);
    expect(sent.length).toBeGreaterThan(2_400_000);
    const answer = await studio.request('/v1/images/edits', {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      body: sent,
    });
    expect(answer.status).toBe(400);
    const error = ((await answer.json()) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe('BAD_REQUEST');
    expect(error.message).toContain('"prompt" is sent twice');
  });
});
