// Numbers and times as people read them.

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

export const formatTime = (iso: string): string => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** Instants the server writes into messages (`2026-11-26T14:05:00.000Z`) shown as this computer's local time. */
export const localizeTimes = (text: string): string =>
  text.replace(/\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?Z\b/g, (iso) => formatTime(iso));

/** When a cooldown ends, as a person reads it: the time today, else the date and time. */
export function formatUntil(iso: string, now = new Date()): string {
  const when = new Date(iso);
  return when.toDateString() === now.toDateString() ? when.toLocaleTimeString(undefined, { timeStyle: 'short' }) : formatTime(iso);
}

export const formatMs = (ms: number): string => (ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`);

/** A running time as a clock reads it: `12 s`, `3 min 04 s`. */
export function formatElapsed(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;
}

/** "1 image", "3 images": a count with its noun, singular or plural. */
export const plural = (count: number, one: string, many = `${one}s`): string => `${count} ${count === 1 ? one : many}`;
