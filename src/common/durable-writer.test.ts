import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { isAtomicTempName } from './atomic-file.js';
import { DurableWriter, WRITER_THREADS } from './durable-writer.js';

const folder = () => mkdtempSync(join(tmpdir(), 'svc-durable-'));
const temps = (dir: string) => readdirSync(dir).filter(isAtomicTempName);
const writers: DurableWriter[] = [];
const writer = () => {
  const made = new DurableWriter();
  writers.push(made);
  return made;
};

afterEach(async () => {
  for (const made of writers.splice(0)) await made.close();
});

describe('DurableWriter', () => {
  it('writes the whole file with its mode and leaves no temp file', async () => {
    const dir = folder();
    const bytes = Buffer.from(Array.from({ length: 300_000 }, (_, index) => index % 251));
    await expect(writer().write(join(dir, 'a.png'), bytes, { mode: 0o600 })).resolves.toBe(true);
    expect(readFileSync(join(dir, 'a.png')).equals(bytes)).toBe(true);
    expect(statSync(join(dir, 'a.png')).mode & 0o777).toBe(0o600);
    expect(temps(dir)).toEqual([]);
  });

  it('leaves an existing file alone when exclusive, and replaces it otherwise', async () => {
    const dir = folder();
    const path = join(dir, 'taken.png');
    writeFileSync(path, 'older');
    const files = writer();
    await expect(files.write(path, Buffer.from('newer'), { exclusive: true })).resolves.toBe(false);
    expect(readFileSync(path, 'utf8')).toBe('older');
    await expect(files.write(path, Buffer.from('newer'))).resolves.toBe(true);
    expect(readFileSync(path, 'utf8')).toBe('newer');
    expect(temps(dir)).toEqual([]);
  });

  it('writes under the first free of several names, in one hop', async () => {
    const dir = folder();
    const [first, second, third] = ['1.png', '2.png', '3.png'].map((name) => join(dir, name));
    writeFileSync(first, 'older');
    const files = writer();
    await expect(files.writeFirstFree([first, second, third], Buffer.from('new'))).resolves.toBe(second);
    expect(readFileSync(first, 'utf8')).toBe('older');
    expect(readFileSync(second, 'utf8')).toBe('new');
    expect(existsSync(third)).toBe(false);
    await expect(files.writeFirstFree([first, second], Buffer.from('newer'))).resolves.toBeUndefined();
    expect(readFileSync(second, 'utf8')).toBe('new');
    expect(temps(dir)).toEqual([]);
  });

  it('moves bytes that own their whole buffer, and copies a view into a larger one', async () => {
    const dir = folder();
    const files = writer();
    const owned = Buffer.from(new Uint8Array(100_000).fill(9).buffer);
    await files.write(join(dir, 'moved.png'), owned, { transfer: true });
    expect(owned.length).toBe(0); // given up: the thread has the bytes
    expect(statSync(join(dir, 'moved.png')).size).toBe(100_000);
    const whole = Buffer.alloc(1000, 5);
    const view = whole.subarray(100, 600);
    await files.write(join(dir, 'copied.png'), view, { transfer: true });
    expect(view.length).toBe(500);
    expect(whole[0]).toBe(5);
    expect(readFileSync(join(dir, 'copied.png')).equals(Buffer.alloc(500, 5))).toBe(true);
  });

  it('writes bytes in shared memory (copied, never moved)', async () => {
    const dir = folder();
    const shared = new Uint8Array(new SharedArrayBuffer(4096)).fill(3);
    await expect(writer().write(join(dir, 'shared.png'), shared, { transfer: true })).resolves.toBe(true);
    expect(shared.length).toBe(4096);
    expect(readFileSync(join(dir, 'shared.png')).equals(Buffer.alloc(4096, 3))).toBe(true);
  });

  it('makes a missing folder, private for a private file', async () => {
    const dir = join(folder(), 'made', 'here');
    await writer().write(join(dir, 'b.png'), Buffer.from('x'), { mode: 0o600 });
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('reports a failure with its code and leaves no temp file', async () => {
    const dir = folder();
    mkdirSync(join(dir, 'target.png'));
    const failed = writer().write(join(dir, 'target.png'), Buffer.from('x'));
    await expect(failed).rejects.toMatchObject({ code: 'EISDIR' });
    expect(temps(dir)).toEqual([]);
    // The thread is still there for the next write.
    const files = writers[0];
    await expect(files.write(join(dir, 'next.png'), Buffer.from('y'))).resolves.toBe(true);
  });

  it('runs many writes at once, each answered once', async () => {
    const dir = folder();
    const files = writer();
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, index) => files.write(join(dir, `${index}.png`), Buffer.from(`image ${index}`))),
    );
    expect(answers).toEqual(Array.from({ length: 40 }, () => true));
    for (let index = 0; index < 40; index += 1) expect(readFileSync(join(dir, `${index}.png`), 'utf8')).toBe(`image ${index}`);
  });

  it('grows to WRITER_THREADS threads under a burst, and never gives one name to two writes', async () => {
    const dir = folder();
    const files = writer();
    const names = Array.from({ length: 12 }, (_, index) => join(dir, `${index}.png`));
    const answers = await Promise.all(Array.from({ length: 16 }, (_, index) => files.writeFirstFree(names, Buffer.from(`image ${index}`))));
    expect(files.threadCount).toBe(WRITER_THREADS);
    const taken = answers.filter((answer): answer is string => answer !== undefined);
    // Twelve names for sixteen writes: each name taken once, by the write whose bytes it holds.
    expect(new Set(taken).size).toBe(12);
    expect(answers.filter((answer) => answer === undefined)).toHaveLength(4);
    answers.forEach((answer, index) => {
      if (answer) expect(readFileSync(answer, 'utf8')).toBe(`image ${index}`);
    });
    expect(temps(dir)).toEqual([]);
  });

  it('starts a thread ahead for each write expected at once, up to WRITER_THREADS', async () => {
    const dir = folder();
    const files = writer();
    expect(files.threadCount).toBe(0);
    const one = files.expect();
    expect(files.threadCount).toBe(1);
    // Said twice, it counts once.
    one();
    one();
    const more = Array.from({ length: WRITER_THREADS + 2 }, () => files.expect());
    expect(files.threadCount).toBe(WRITER_THREADS);
    const answers = await Promise.all(more.map((_, index) => files.write(join(dir, `${index}.png`), Buffer.from(`image ${index}`))));
    for (const given of more) given();
    expect(answers.every(Boolean)).toBe(true);
    expect(files.threadCount).toBe(WRITER_THREADS);
    await files.close();
    // A closed writer expects nothing and starts nothing.
    files.expect()();
    expect(files.threadCount).toBe(0);
  });

  it('lets the writes under way finish on close, and refuses writes after it', async () => {
    const dir = folder();
    const files = writer();
    const under = files.write(join(dir, 'last.png'), Buffer.alloc(2_000_000, 7));
    await files.close();
    await expect(under).resolves.toBe(true);
    expect(statSync(join(dir, 'last.png')).size).toBe(2_000_000);
    await expect(files.write(join(dir, 'late.png'), Buffer.from('x'))).rejects.toThrow(/closed/);
    expect(existsSync(join(dir, 'late.png'))).toBe(false);
  });

  it('does not hold a process open once its writes are done', async () => {
    const dir = folder();
    const script = `import { DurableWriter } from ${JSON.stringify(join(import.meta.dirname, 'durable-writer.ts'))};
      await new DurableWriter().write(${JSON.stringify(join(dir, 'c.png'))}, Buffer.from('done'));`;
    // Without close(), the process must still end by itself.
    await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { timeout: 20_000 });
    expect(readFileSync(join(dir, 'c.png'), 'utf8')).toBe('done');
  });
});
