import { readdirSync, readFileSync } from 'node:fs';
import { signalProcessGroup } from './process-tree.js';

// Process groups a program of ours started and may have left behind when it
// was killed without a chance to clean up (SIGKILL, power loss of the
// parent). A record names the group and the start time of its leader, so a
// later start can kill what is left without touching an unrelated process
// that reused the id. Linux /proc only; elsewhere nothing is recorded.

/** Enough to recognise a process group again after the parent died. */
export interface ProcessGroupRecord {
  /** The leader's pid, which is the group id. */
  pgid: number;
  /** The leader's start time in clock ticks after boot (/proc/<pid>/stat field 22). */
  startTicks: number;
  /** The boot it ran in: after a reboot no record can match. */
  bootId: string;
}

interface ProcStat {
  pid: number;
  state: string;
  pgrp: number;
  startTicks: number;
}

function readStat(pid: number): ProcStat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: fields are read after its last ')'.
    const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { pid, state: rest[0], pgrp: Number(rest[2]), startTicks: Number(rest[19]) };
  } catch {
    return undefined;
  }
}

function bootId(): string | undefined {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** The record of a group leader we just started; undefined where /proc cannot tell (then nothing is reaped). */
export function recordProcessGroup(pid: number): ProcessGroupRecord | undefined {
  const stat = readStat(pid);
  const boot = bootId();
  if (!stat || boot === undefined || !Number.isFinite(stat.startTicks)) return undefined;
  return { pgid: pid, startTicks: stat.startTicks, bootId: boot };
}

/** Live (not zombie) processes of a group. */
function groupMembers(pgid: number): ProcStat[] {
  const members: ProcStat[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readStat(Number(name));
    if (stat && stat.pgrp === pgid && stat.state !== 'Z') members.push(stat);
  }
  return members;
}

/** Whether the process a record names (its pgid as a pid) still runs: same boot, same start time, not a zombie. */
export function isRecordedProcessRunning(record: ProcessGroupRecord): boolean {
  if (bootId() !== record.bootId) return false;
  const stat = readStat(record.pgid);
  return stat !== undefined && stat.state !== 'Z' && stat.startTicks === record.startTicks;
}

export type ReapOutcome = 'killed' | 'gone' | 'not-ours';

/**
 * SIGKILLs what is left of a recorded group. A group is ours when its leader
 * still runs with the recorded start time, or, the leader gone, when every
 * member started after it (descendants it left). Anything else (another boot,
 * a leader with another start time) is an unrelated process reusing the id.
 */
export function reapProcessGroup(record: ProcessGroupRecord): ReapOutcome {
  if (bootId() !== record.bootId) return 'gone';
  const members = groupMembers(record.pgid);
  if (members.length === 0) return 'gone';
  const leader = members.find((member) => member.pid === record.pgid);
  const ours = leader ? leader.startTicks === record.startTicks : members.every((member) => member.startTicks >= record.startTicks);
  if (!ours) return 'not-ours';
  return signalProcessGroup(record.pgid, 'SIGKILL') ? 'killed' : 'gone';
}
