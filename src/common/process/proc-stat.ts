import { readFileSync } from 'node:fs';

/**
 * The fields of `/proc/<pid>/stat` after the command name, from the state (index 0: state, 1: ppid,
 * 11/12: utime/stime, 19: start time, as in proc(5) less two); undefined when the process has no
 * entry (it is gone, or there is no /proc). The command name may hold spaces and parentheses, so
 * fields are counted from its last ")".
 */
export function procStatFields(pid: number): string[] | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return undefined;
  }
  return text.slice(text.lastIndexOf(')') + 2).split(' ');
}
