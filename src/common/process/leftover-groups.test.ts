import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { isRecordedProcessRunning, reapProcessGroup, recordProcessGroup } from './leftover-groups.js';
import { signalProcessGroup } from './process-tree.js';

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

/** A detached group leader with a child; answers both pids. */
async function startGroup(): Promise<{ leader: number; child: number }> {
  const leader = spawn(
    process.execPath,
    [
      '-e',
      `
    const c = require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    process.stdout.write(String(c.pid) + '\\n');
    setInterval(() => {}, 1000);
  `,
    ],
    { detached: true, stdio: ['ignore', 'pipe', 'ignore'] },
  );
  leader.unref();
  const child = await new Promise<number>((resolve) =>
    leader.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim()))),
  );
  leader.stdout.destroy();
  return { leader: leader.pid as number, child };
}

describe('leftover process groups', () => {
  const groups: number[] = [];
  afterEach(() => {
    for (const pgid of groups.splice(0)) signalProcessGroup(pgid, 'SIGKILL');
  });

  it('reaps a recorded group, child included, and then finds it gone', async () => {
    const { leader, child } = await startGroup();
    groups.push(leader);
    const record = recordProcessGroup(leader);
    expect(record).toMatchObject({ pgid: leader });
    expect(isRecordedProcessRunning(record!)).toBe(true);
    expect(isRecordedProcessRunning({ ...record!, startTicks: record!.startTicks + 1 })).toBe(false);
    expect(reapProcessGroup(record!)).toBe('killed');
    await waitUntil(() => !isAlive(leader) && !isAlive(child), 'the group to die');
    expect(reapProcessGroup(record!)).toBe('gone');
  });

  it('reaps the children a dead leader left in its group', async () => {
    const { leader, child } = await startGroup();
    groups.push(leader);
    const record = recordProcessGroup(leader)!;
    process.kill(leader, 'SIGKILL');
    await waitUntil(() => !isAlive(leader), 'the leader to die');
    expect(isAlive(child)).toBe(true);
    expect(reapProcessGroup(record)).toBe('killed');
    await waitUntil(() => !isAlive(child), 'the orphan to die');
  });

  it('leaves alone a group whose leader has another start time (a reused id) or another boot', async () => {
    const { leader, child } = await startGroup();
    groups.push(leader);
    const record = recordProcessGroup(leader)!;
    expect(reapProcessGroup({ ...record, startTicks: record.startTicks - 1 })).toBe('not-ours');
    expect(reapProcessGroup({ ...record, bootId: 'another-boot' })).toBe('gone');
    expect(isAlive(leader) && isAlive(child)).toBe(true);
  });
});
