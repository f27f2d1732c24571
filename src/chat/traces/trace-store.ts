import { closeSync, openSync, readSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ServiceError } from '../../common/errors.js';
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

/** Reads the traces directory. Ids are validated, so no request names a path outside it. */
export class TraceStore {
  constructor(readonly dir: string) {}

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
        const summary: TraceSummary = { traceId, startedAt: traceStartedAt(traceId), modifiedAt: stat.mtime.toISOString(), bytes: stat.size };
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
