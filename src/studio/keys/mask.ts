// How a key is shown: a few characters of each end, never enough to use it. At
// most a sixth of the key shows on each side, and never more than four
// characters (`sk-p…Xy12`); a key too short for that shows nothing.

const SHOWN_MAX = 4;

export function maskKey(value: string): string {
  const shown = Math.min(SHOWN_MAX, Math.floor(value.length / 6));
  return shown === 0 ? '…' : `${value.slice(0, shown)}…${value.slice(-shown)}`;
}
