import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findExecutable } from './find-executable.js';

describe('findExecutable: the one PATH lookup rule', () => {
  const root = mkdtempSync(join(tmpdir(), 'find-executable-'));
  const first = join(root, 'first');
  const second = join(root, 'second');
  mkdirSync(first);
  mkdirSync(second);
  const script = (dir: string, name: string, mode: number) => {
    const path = join(dir, name);
    writeFileSync(path, '#!/bin/sh\necho hi\n');
    chmodSync(path, mode);
    return path;
  };
  script(first, 'plain', 0o644);
  const runnable = script(second, 'plain', 0o755);
  const early = script(first, 'both', 0o755);
  script(second, 'both', 0o755);
  mkdirSync(join(first, 'folder'));
  chmodSync(join(first, 'folder'), 0o755);
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('finds the first executable regular file on PATH, in order', () => {
    expect(findExecutable('both', `${first}:${second}`)).toBe(early);
    // A file without execute permission is passed over.
    expect(findExecutable('plain', `${first}:${second}`)).toBe(runnable);
  });

  it('never takes a directory, and answers undefined for what is missing', () => {
    expect(findExecutable('folder', first)).toBeUndefined();
    expect(findExecutable('missing', `${first}:${second}`)).toBeUndefined();
    expect(findExecutable('both', undefined)).toBeUndefined();
    expect(findExecutable('', first)).toBeUndefined();
  });

  it('never searches the current directory through an empty or relative PATH entry', () => {
    expect(findExecutable('both', ':', first)).toBeUndefined();
    expect(findExecutable('both', '.:first', root)).toBeUndefined();
  });

  it('takes a name with a slash as a path, relative to cwd', () => {
    expect(findExecutable('second/plain', '', root)).toBe(runnable);
    expect(findExecutable(runnable, '')).toBe(runnable);
    expect(findExecutable('first/plain', '', root)).toBeUndefined();
  });
});
