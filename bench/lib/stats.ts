// Small statistics and output helpers shared by benchmarks.

/** The p-quantile (0..1) of sorted values, nearest rank. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
  return sorted[rank];
}

/** A growable Float64Array: millions of samples without millions of boxed numbers. */
export class Samples {
  private values = new Float64Array(1 << 16);
  length = 0;

  push(value: number): void {
    if (this.length === this.values.length) {
      const bigger = new Float64Array(this.values.length * 2);
      bigger.set(this.values);
      this.values = bigger;
    }
    this.values[this.length] = value;
    this.length += 1;
  }

  sorted(): Float64Array {
    return this.values.slice(0, this.length).sort();
  }
}

/** Wall-clock milliseconds with sub-millisecond resolution, comparable across processes of one machine. */
export const wallClockMs = (): number => performance.timeOrigin + performance.now();

export const round = (value: number, digits = 2): number => Number(value.toFixed(digits));

/** A plain aligned text table. */
export function table(header: readonly string[], rows: ReadonlyArray<readonly (string | number)[]>): string {
  const cells = [header, ...rows].map((row) => row.map(String));
  const widths = header.map((_, column) => Math.max(...cells.map((row) => row[column].length)));
  const line = (row: string[]) =>
    row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]))).join('  ');
  return [line(cells[0]), widths.map((width) => '-'.repeat(width)).join('  '), ...cells.slice(1).map(line)].join('\n');
}
