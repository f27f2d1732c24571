// Times in the CLI's human output are the user's local time (`2026-11-26
// 12:20:05`, the machine's time zone, TZ honoured); `--json` keeps the
// server's ISO instants.

/** An ISO instant as local date and time; text that is not a time is returned as it is. */
export function localTime(iso: string | null | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}
