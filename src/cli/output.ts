// How the CLI prints: one JSON document with --json, tidy text otherwise,
// colored only on a TTY and never when NO_COLOR is set.

export interface Output {
  readonly json: boolean;
  /** Prints `data` as JSON with --json, else the human rendering. */
  result(data: unknown, human: () => string): void;
  /** Progress and notes for people: stderr, so stdout stays parseable. */
  note(text: string): void;
  readonly color: Colors;
}

export interface Colors {
  green(text: string): string;
  red(text: string): string;
  yellow(text: string): string;
  dim(text: string): string;
  bold(text: string): string;
}

export function useColor(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR && env.FORCE_COLOR !== '0') return true;
  return Boolean(stream.isTTY) && env.TERM !== 'dumb';
}

export function colors(enabled: boolean): Colors {
  const wrap = (open: number, close: number) => (text: string) => (enabled ? `\u001b[${open}m${text}\u001b[${close}m` : text);
  return { green: wrap(32, 39), red: wrap(31, 39), yellow: wrap(33, 39), dim: wrap(2, 22), bold: wrap(1, 22) };
}

export function createOutput(options: { json: boolean }): Output {
  const color = colors(!options.json && useColor(process.stdout));
  return {
    json: options.json,
    color,
    result(data, human) {
      if (options.json) return void process.stdout.write(`${JSON.stringify(data, null, 2)}\n`);
      let text: string;
      try {
        text = human();
      } catch {
        // An answer of another shape than this CLI knows (another server, an older one): shown as it is.
        text = JSON.stringify(data, null, 2) ?? String(data);
      }
      process.stdout.write(`${text}\n`);
    },
    note(text) {
      if (!options.json) process.stderr.write(`${text}\n`);
    },
  };
}

/** Left-aligned columns; the width of each column is its widest cell (ANSI codes not counted). */
export function table(rows: readonly (readonly string[])[]): string {
  const visible = (cell: string) => cell.replace(/\u001b\[[0-9;]*m/g, '').length;
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, index) => (widths[index] = Math.max(widths[index] ?? 0, visible(cell))));
  return rows
    .map((row) => row.map((cell, index) => (index === row.length - 1 ? cell : cell + ' '.repeat(widths[index] - visible(cell)))).join('  '))
    .join('\n');
}
