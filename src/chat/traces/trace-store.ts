import { closeSync, openSync, readSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ServiceError } from '../errors.js';
import { isObject } from '../agents/fields.js';
import { isTraceId, traceStartedAt } from './trace-id.js';

const SUFFIX = '.ndjson';
/** Bytes read from the head of a file to describe it in the list. */
const HEAD_BYTES = 4096;

export interface TraceSummary {
  traceId: string;
  startedAt: string;
  modifiedAt: string;
  bytes: number;
  sessionId?: string;
  agent?: string;
}

export interface TraceContent {
  traceId: string;
  events: Record<string, unknown>[];
  /** The file ends in a partial line (the writer died mid-line); it is left out. */
  truncated: boolean;
  /** Complete lines that were not JSON objects (left out). */
  invalidLines: number;
}

/** First line of a trace (the `queued` event) names its session and agent. */
function readHead(path: string): Record<string, unknown> | undefined {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(HEAD_BYTES);
    const read = readSync(fd, buffer, 0, HEAD_BYTES, 0);
    const text = buffer.subarray(0, read).toString('utf8');
    const newline = text.indexOf('\n');
    if (newline === -1) return undefined;
    const value: unknown = JSON.parse(text.slice(0, newline));
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

export interface TraceRetention {
  /** Traces last written longer ago than this are deleted. */
  retentionDays: number;
  /** All traces together at most this many bytes: the oldest go first. */
  maxTotalBytes: number;
}

/** Reads the traces directory. Ids are validated, so no request names a path outside it. */
export class TraceStore {
  constructor(readonly dir: string) {}

  /**
   * Applies the retention: traces past their age go, then the oldest until
   * the rest fit the size cap. Traces of runs still going (`keep`) stay.
   * Returns how many files were deleted; a file that cannot be deleted is left.
   */
  sweep(retention: TraceRetention, keep: ReadonlySet<string> = new Set(), now = Date.now()): number {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return 0;
    }
    const files = names
      .filter((name) => name.endsWith(SUFFIX) && isTraceId(name.slice(0, -SUFFIX.length)))
      .sort()
      .flatMap((name) => {
        try {
          const stat = statSync(join(this.dir, name));
          return [{ name, traceId: name.slice(0, -SUFFIX.length), bytes: stat.size, modified: stat.mtimeMs }];
        } catch {
          return [];
        }
      });
    const oldestAllowed = now - retention.retentionDays * 24 * 60 * 60 * 1000;
    let total = files.reduce((sum, file) => sum + file.bytes, 0);
    let deleted = 0;
    // Oldest first (ids sort by start time).
    for (const file of files) {
      if (keep.has(file.traceId)) continue;
      if (file.modified >= oldestAllowed && total <= retention.maxTotalBytes) continue;
      try {
        rmSync(join(this.dir, file.name));
        total -= file.bytes;
        deleted += 1;
      } catch {
        // Left for the next sweep.
      }
    }
    return deleted;
  }

  /** Newest first. */
  list(limit: number): TraceSummary[] {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const ids = names
      .filter((name) => name.endsWith(SUFFIX))
      .map((name) => name.slice(0, -SUFFIX.length))
      .filter(isTraceId)
      .sort()
      .reverse()
      .slice(0, limit);
    const summaries: TraceSummary[] = [];
    for (const traceId of ids) {
      const path = join(this.dir, traceId + SUFFIX);
      try {
        const stat = statSync(path);
        const head = readHead(path);
        const summary: TraceSummary = {
          traceId,
          startedAt: traceStartedAt(traceId),
          modifiedAt: stat.mtime.toISOString(),
          bytes: stat.size,
        };
        if (typeof head?.sessionId === 'string') summary.sessionId = head.sessionId;
        if (typeof head?.agent === 'string') summary.agent = head.agent;
        summaries.push(summary);
      } catch {
        // Removed between listing and reading: not listed.
      }
    }
    return summaries;
  }

  read(traceId: string): TraceContent {
    if (!isTraceId(traceId)) throw new ServiceError('INVALID_FILENAME', 'Not a trace id.', { details: { traceId: traceId.slice(0, 80) } });
    let text: string;
    try {
      text = readFileSync(join(this.dir, traceId + SUFFIX), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new ServiceError('NOT_FOUND', `No trace ${traceId}.`);
      throw error;
    }
    const lines = text.split('\n');
    // The piece after the last newline is empty for a complete file, partial otherwise.
    const tail = lines.pop() ?? '';
    const events: Record<string, unknown>[] = [];
    let invalidLines = 0;
    for (const line of lines) {
      if (line.trim() === '') continue;
      try {
        const value: unknown = JSON.parse(line);
        if (isObject(value)) events.push(value);
        else invalidLines += 1;
      } catch {
        invalidLines += 1;
      }
    }
    return { traceId, events, truncated: tail.length > 0, invalidLines };
  }
}
