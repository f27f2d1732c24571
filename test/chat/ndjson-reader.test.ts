import { describe, expect, it } from 'vitest';
import { NdjsonReader } from '../../src/chat/runs/ndjson-reader.js';

function reader(maxLineBytes = 1024) {
  const objects: Array<Record<string, unknown>> = [];
  const skips: Array<{ kind: string; sample: string }> = [];
  const instance = new NdjsonReader({
    maxLineBytes,
    onObject: (object) => objects.push(object),
    onSkip: (kind, sample) => skips.push({ kind, sample }),
  });
  return { instance, objects, skips };
}

describe('NdjsonReader', () => {
  it('joins a line split across chunks', () => {
    const { instance, objects } = reader();
    instance.push(Buffer.from('{"type":"a","n'));
    instance.push(Buffer.from('":1}\n{"type":'));
    expect(objects).toEqual([{ type: 'a', n: 1 }]);
    instance.push(Buffer.from('"b"}\n'));
    expect(objects).toEqual([{ type: 'a', n: 1 }, { type: 'b' }]);
  });

  it('reassembles multi-byte UTF-8 characters split across chunks, even byte by byte', () => {
    const { instance, objects } = reader();
    const bytes = Buffer.from(`${JSON.stringify({ type: 'text', text: 'naïve 日本 😀' })}\n`);
    for (const byte of bytes) instance.push(Buffer.from([byte]));
    expect(objects).toEqual([{ type: 'text', text: 'naïve 日本 😀' }]);
  });

  it('skips and counts non-JSON lines and JSON that is not an object', () => {
    const { instance, objects, skips } = reader();
    instance.push(Buffer.from('Banner v1 starting\n{"type":"ok"}\n[1,2]\n"text"\n{"type":"trunc\n'));
    expect(objects).toEqual([{ type: 'ok' }]);
    expect(instance.stats).toEqual({ objects: 1, skipped: 4, oversized: 0 });
    expect(skips.map((skip) => skip.sample)).toContain('Banner v1 starting');
  });

  it('ignores blank lines, CRLF endings and a BOM', () => {
    const { instance, objects } = reader();
    instance.push(Buffer.from('\uFEFF{"type":"a"}\r\n\n   \n{"type":"b"}\r\n'));
    expect(objects).toEqual([{ type: 'a' }, { type: 'b' }]);
    expect(instance.stats.skipped).toBe(0);
  });

  it('drops a line over the cap without buffering it, counts it, and reads the next line', () => {
    const { instance, objects, skips } = reader(64);
    instance.push(Buffer.from(`{"type":"big","text":"${'x'.repeat(40)}`));
    instance.push(Buffer.from(`${'y'.repeat(100)}`));
    instance.push(Buffer.from(`${'z'.repeat(100)}"}\n{"type":"after"}\n`));
    expect(objects).toEqual([{ type: 'after' }]);
    expect(instance.stats.oversized).toBe(1);
    expect(skips[0].kind).toBe('oversized');
  });

  it('accepts a line of exactly the cap', () => {
    const line = JSON.stringify({ type: 'x', pad: 'p'.repeat(20) });
    const { instance, objects } = reader(Buffer.byteLength(line));
    instance.push(Buffer.from(`${line}\n`));
    expect(objects).toHaveLength(1);
  });

  it('reads a last line without a newline at the end of the stream', () => {
    const { instance, objects } = reader();
    instance.push(Buffer.from('{"type":"a"}\n{"type":"last"}'));
    expect(objects).toHaveLength(1);
    instance.end();
    expect(objects).toEqual([{ type: 'a' }, { type: 'last' }]);
  });

  it('counts a truncated last line at the end of the stream as skipped', () => {
    const { instance, objects } = reader();
    instance.push(Buffer.from('{"type":"a"}\n{"type":"assis'));
    instance.end();
    expect(objects).toEqual([{ type: 'a' }]);
    expect(instance.stats.skipped).toBe(1);
  });
});
