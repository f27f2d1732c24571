/**
 * Sends a signal to a whole process group: the one a detached child leads
 * (its pid is the group id), so its children and grandchildren get it too.
 * False when the group is already gone.
 */
export function signalProcessGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    // ESRCH: nothing left in the group.
    return false;
  }
}
