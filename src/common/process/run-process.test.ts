import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runProcess } from './run-process.js';
import { TreeProcess } from './tree-process.js';

const NODE_DIR = dirname(process.execPath);
const env = { PATH: NODE_DIR };

/** Alive and not a zombie. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

async function waitUntil(check: () => boolean, what: string): Promise<void> {
  for (let attempt = 0; attempt < 500; attempt += 1) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`Timed out waiting for ${what}.`);
}

/** A program that starts a grandchild ignoring SIGTERM, prints its pid, and never ends. */
const HANG = `
const { spawn } = require('node:child_process');
const child = spawn(process.execPath, ['-e', 'process.on("SIGTERM", () => {}); setInterval(() => {}, 1000);'], { stdio: 'ignore' });
process.on('SIGTERM', () => {});
process.stdout.write(String(child.pid) + '\\n');
setInterval(() => {}, 1000);
`;

/** A SIGTERM-deaf shell with a SIGTERM-deaf child (an ignored signal stays ignored across fork and exec); prints the child's pid. */
const DEAF_TREE = `trap '' TERM; sleep 1000 & echo $!; while :; do sleep 1; done`;

describe('runProcess: one program within a time budget', () => {
  it('finds a bare name on PATH and captures stdout, stderr and the exit code', async () => {
    const result = await runProcess({
      file: 'node',
      args: ['-e', 'process.stdout.write("out"); process.stderr.write("err"); process.exit(3)'],
      env,
      timeoutMs: 10_000,
    });
    expect(result).toEqual({
      exitCode: 3,
      signal: null,
      stdout: 'out',
      stderr: 'err',
      timedOut: false,
      aborted: false,
      stdoutTruncated: false,
      stderrTruncated: false,
    });
  });

  it('answers ENOENT for a program that is not on PATH, without throwing', async () => {
    const result = await runProcess({ file: 'no-such-program-here', args: [], env, timeoutMs: 1000 });
    expect(result.spawnError).toBe('ENOENT');
    expect(result.exitCode).toBeNull();
  });

  it('kills the whole tree when the time budget runs out, SIGTERM-deaf grandchild included', async () => {
    // A shell ignores SIGTERM from its first instruction (and its child inherits that), where a node
    // program is deaf only once it has started: on a loaded machine that took longer than the budget,
    // and SIGTERM still killed it.
    const result = await runProcess({
      file: '/bin/sh',
      args: ['-c', DEAF_TREE],
      env: { PATH: '/usr/bin:/bin' },
      timeoutMs: 500,
      killGraceMs: 200,
    });
    expect(result.timedOut).toBe(true);
    expect(result.signal).toBe('SIGKILL');
    const grandchild = Number(result.stdout.trim());
    expect(grandchild).toBeGreaterThan(0);
    await waitUntil(() => !isAlive(grandchild), 'the grandchild to die');
  });

  it('stops when the caller aborts', async () => {
    const controller = new AbortController();
    const running = runProcess({
      file: process.execPath,
      args: ['-e', 'setInterval(() => {}, 1000)'],
      env,
      timeoutMs: 60_000,
      signal: controller.signal,
      killGraceMs: 200,
    });
    setTimeout(() => controller.abort(), 100);
    const result = await running;
    expect(result).toMatchObject({ aborted: true, timedOut: false, signal: 'SIGTERM' });
  });

  it('keeps at most maxOutputBytes of each stream and says so', async () => {
    const result = await runProcess({
      file: process.execPath,
      args: ['-e', 'process.stdout.write("x".repeat(100000))'],
      env,
      timeoutMs: 10_000,
      maxOutputBytes: 1000,
    });
    expect(result.stdout).toBe('x'.repeat(1000));
    expect(result.stdoutTruncated).toBe(true);
    expect(result.exitCode).toBe(0);
  });

  it('passes input on stdin and only the given environment', async () => {
    const result = await runProcess({
      file: process.execPath,
      args: [
        '-e',
        'let s = ""; process.stdin.on("data", (d) => (s += d)); process.stdin.on("end", () => console.log(s.toUpperCase(), Object.keys(process.env).sort().join(",")))',
      ],
      env: { PATH: NODE_DIR, ONLY_THIS: '1' },
      input: 'hello',
      timeoutMs: 10_000,
    });
    expect(result.stdout.trim()).toBe('HELLO ONLY_THIS,PATH');
  });
});

describe('TreeProcess: the streaming form', () => {
  it('streams output, stops once (the first stop wins) and kills leftovers when the program exits', async () => {
    const chunks: string[] = [];
    const running = new TreeProcess({
      file: process.execPath,
      args: ['-e', HANG],
      env,
      killGraceMs: 200,
      onStdout: (chunk) => chunks.push(chunk.toString()),
    });
    await waitUntil(() => chunks.join('').includes('\n'), 'the grandchild pid');
    const grandchild = Number(chunks.join('').trim());
    expect(running.stop()).toBe(true);
    expect(running.stop()).toBe(false);
    const end = await running.finished;
    expect(end).toMatchObject({ stoppedBy: 'stopped', signal: 'SIGKILL' });
    await waitUntil(() => !isAlive(grandchild), 'the grandchild to die');
    // After the end nothing more can be stopped.
    expect(running.stop()).toBe(false);
  });
});
