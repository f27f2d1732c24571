// Fault injection: a queue of scripted misbehaviours per route. Each request to
// a route takes the first fault queued for it (or for `*`), which then applies
// to that request only, until its `times` run out.

export interface FaultSpec {
  /** Answer this status instead of running the route (with `body`, or the simulator's error body for it). */
  readonly status?: number;
  /** JSON value (or raw string) of the injected answer; only with `status`. */
  readonly body?: unknown;
  /** Extra response headers (on the injected answer, or on the normal one). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Wait this long before answering (the client can still abort meanwhile). */
  readonly latencyMs?: number;
  /** Streaming routes: deliver this many SSE events, then cut the connection (no terminal event). */
  readonly disconnectAfterEvents?: number;
  /** Any route: deliver this many body bytes, then cut the connection (0 = reset before any byte). */
  readonly disconnectAfterBytes?: number;
  /**
   * Emit malformed output: on a stream, the data line of one event is truncated JSON
   * (`true` = the second event, a number = that 0-based event index) and the stream goes on;
   * on a JSON answer, the body is cut in half.
   */
  readonly malformed?: boolean | number;
  /** How many requests the fault applies to (default 1); `'always'` until cleared. */
  readonly times?: number | 'always';
}

export interface ActiveFault extends FaultSpec {
  readonly id: number;
  readonly route: string;
  remaining: number | 'always';
}

export class FaultValidationError extends Error {}

const NUMBER_FIELDS = ['status', 'latencyMs', 'disconnectAfterEvents', 'disconnectAfterBytes'] as const;

/** Checks a fault that arrived as JSON (control endpoint) and returns it typed. */
export function parseFaultSpec(input: unknown): { route: string; spec: FaultSpec } {
  if (!input || typeof input !== 'object' || Array.isArray(input)) throw new FaultValidationError('A fault must be a JSON object.');
  const record = input as Record<string, unknown>;
  if (typeof record.route !== 'string' || !record.route)
    throw new FaultValidationError('A fault needs "route", e.g. "POST /v1/responses" or "*".');
  for (const field of NUMBER_FIELDS) {
    const value = record[field];
    if (value !== undefined && (typeof value !== 'number' || !Number.isInteger(value) || value < 0)) {
      throw new FaultValidationError(`"${field}" must be a non-negative integer.`);
    }
  }
  if (record.status !== undefined && ((record.status as number) < 100 || (record.status as number) > 599)) {
    throw new FaultValidationError('"status" must be an HTTP status (100-599).');
  }
  const { times, malformed, headers } = record;
  if (times !== undefined && times !== 'always' && (typeof times !== 'number' || !Number.isInteger(times) || times < 1)) {
    throw new FaultValidationError('"times" must be a positive integer or "always".');
  }
  if (
    malformed !== undefined &&
    typeof malformed !== 'boolean' &&
    (typeof malformed !== 'number' || !Number.isInteger(malformed) || malformed < 0)
  ) {
    throw new FaultValidationError('"malformed" must be a boolean or an event index.');
  }
  if (
    headers !== undefined &&
    (typeof headers !== 'object' || headers === null || Object.values(headers).some((value) => typeof value !== 'string'))
  ) {
    throw new FaultValidationError('"headers" must map names to strings.');
  }
  const { route, ...spec } = record;
  return { route, spec: spec as FaultSpec };
}

export function normalizeRouteKey(route: string): string {
  if (route === '*') return route;
  const match = /^\s*([A-Za-z]+)\s+(\/\S*)\s*$/.exec(route);
  if (!match) throw new FaultValidationError(`Route "${route}" is not "METHOD /path" or "*".`);
  return `${match[1].toUpperCase()} ${match[2]}`;
}

export class FaultBook {
  private faults: ActiveFault[] = [];
  private nextId = 1;

  add(route: string, spec: FaultSpec): ActiveFault {
    const fault: ActiveFault = { ...spec, id: this.nextId++, route, remaining: spec.times ?? 1 };
    this.faults.push(fault);
    return fault;
  }

  /** Takes the fault for one request to `routeKey`, counting it down. */
  take(routeKey: string): ActiveFault | undefined {
    const index = this.faults.findIndex((fault) => fault.route === routeKey || fault.route === '*');
    if (index < 0) return undefined;
    const fault = this.faults[index];
    if (fault.remaining !== 'always') {
      fault.remaining -= 1;
      if (fault.remaining <= 0) this.faults.splice(index, 1);
    }
    return fault;
  }

  list(): readonly ActiveFault[] {
    return this.faults.map((fault) => ({ ...fault }));
  }

  clear(): void {
    this.faults = [];
  }
}

/** The kinds a fault applies, for the request log. */
export function faultKinds(fault: FaultSpec): string[] {
  const kinds: string[] = [];
  if (fault.status !== undefined) kinds.push(`status:${fault.status}`);
  if (fault.latencyMs) kinds.push(`latency:${fault.latencyMs}`);
  if (fault.disconnectAfterEvents !== undefined) kinds.push(`disconnectAfterEvents:${fault.disconnectAfterEvents}`);
  if (fault.disconnectAfterBytes !== undefined) kinds.push(`disconnectAfterBytes:${fault.disconnectAfterBytes}`);
  if (fault.malformed !== undefined && fault.malformed !== false) kinds.push('malformed');
  if (fault.headers) kinds.push('headers');
  return kinds;
}
