import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import {
  FaultBook,
  FaultValidationError,
  faultKinds,
  normalizeRouteKey,
  parseFaultSpec,
  type ActiveFault,
  type FaultSpec,
} from './harness/faults.js';
import { MultipartError, multipartBoundary, parseMultipart, type MultipartForm } from '../common/multipart.js';
import { SimResponse, type RequestOutcome } from './harness/response.js';
import { abbreviate, fingerprintSecret, maskBody, maskHeaders } from './harness/secrets.js';

// The shared base of every upstream simulator: a plain node:http server on
// 127.0.0.1 (no framework, so its own overhead stays small and steady), route
// registration, a request log with secrets masked, and fault injection both
// in-process and over HTTP (`/__sim/*`) for tests that drive a child process.

export type { ActiveFault, FaultSpec } from './harness/faults.js';
export type { MultipartFile, MultipartForm, MultipartField } from '../common/multipart.js';
export { formField } from '../common/multipart.js';
export { SimResponse, type RequestOutcome } from './harness/response.js';
export { fingerprintSecret, maskSecret } from './harness/secrets.js';

export interface SimRequest {
  /** Position in this simulator's request log. */
  readonly id: number;
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  /** The registered route, `METHOD /pattern`. */
  readonly routeKey: string;
  /** Values of `:name` segments of the pattern. */
  readonly params: Readonly<Record<string, string>>;
  readonly headers: IncomingHttpHeaders;
  readonly rawBody: Buffer;
  /** Parsed JSON or url-encoded body; undefined when empty, multipart or unparseable. */
  readonly body: unknown;
  /** Set for multipart/form-data bodies. */
  readonly form: MultipartForm | undefined;
  /** Why the body could not be parsed (`invalid_json`, `invalid_multipart`). */
  readonly bodyError: string | undefined;
  /** Aborted when the client goes away before the answer is complete. */
  readonly signal: AbortSignal;
  /** A request header by case-insensitive name (first value). */
  header(name: string): string | undefined;
}

export type RouteHandler = (request: SimRequest, response: SimResponse) => void | Promise<void>;

export interface RequestLogEntry {
  readonly id: number;
  readonly at: string;
  readonly method: string;
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  /** The matched route, or null when none matched. */
  readonly route: string | null;
  /** Request headers; credentials masked. */
  readonly headers: Readonly<Record<string, string>>;
  /** `fingerprintSecret()` of the bearer/API key sent, to compare without storing it. */
  readonly credentialFingerprint: string | undefined;
  /** Parsed body with secret fields masked; multipart as fields + file summaries. */
  readonly body: unknown;
  status: number | undefined;
  streamed: boolean;
  eventsSent: number;
  bytesSent: number;
  outcome: RequestOutcome;
  readonly faults: readonly string[];
  durationMs: number | undefined;
}

export interface RequestFilter {
  /** `METHOD /pattern` as registered. */
  readonly route?: string;
  readonly method?: string;
  readonly path?: string;
}

export interface ErrorAnswer {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface SimulatorOptions {
  /** Shown in logs and `GET /__sim/health`. */
  readonly name: string;
  /** The vendor-shaped error body for an injected status (fault without `body`) or a crash. */
  readonly errorBody?: (status: number, routeKey: string) => unknown;
  /** The vendor-shaped answer to an unknown route. */
  readonly notFound?: (method: string, path: string) => ErrorAnswer;
  /** Largest request body accepted (default 64 MiB). */
  readonly maxBodyBytes?: number;
  /** Request log entries kept (default 1000, oldest dropped). */
  readonly logLimit?: number;
}

/** A simulator's own control route (under `/__sim/`): test settings that are not vendor routes (never logged or faulted). */
export type ControlHandler = (request: { readonly body: unknown; readonly query: URLSearchParams }) => ErrorAnswer | Promise<ErrorAnswer>;

export interface WaitOptions {
  /** Give up after this long (default 5000 ms). */
  readonly timeoutMs?: number;
}

export interface Simulator {
  readonly name: string;
  /** Base URL once started (`http://127.0.0.1:<port>`). Throws before `start()`. */
  readonly url: string;
  /** Registers a handler; `path` may hold `:name` segments. */
  route(method: string, path: string, handler: RouteHandler): void;
  /** Registers a control route of this simulator: `path` starts with `/__sim/`, the body is JSON. */
  control(method: string, path: string, handler: ControlHandler): void;
  /** Binds 127.0.0.1 (port 0 = ephemeral) and answers the base URL. */
  start(port?: number): Promise<string>;
  /** Stops listening and drops every open connection. */
  close(): Promise<void>;
  /** Queues a fault for `route` (`METHOD /pattern`, or `*` for any route). */
  fault(route: string, spec: FaultSpec): ActiveFault;
  clearFaults(): void;
  faults(): readonly ActiveFault[];
  /** The request log, oldest first (control requests are not logged). */
  requests(filter?: RequestFilter): readonly RequestLogEntry[];
  lastRequest(filter?: RequestFilter): RequestLogEntry | undefined;
  clearRequests(): void;
  /** Resolves with the first logged request, past or future, that matches and has ended. */
  waitForRequest(predicate: (entry: RequestLogEntry) => boolean, options?: WaitOptions): Promise<RequestLogEntry>;
  /** SSE answers still being written. */
  openStreams(): number;
  /** Takes HTTP upgrade requests (a WebSocket endpoint); without a handler an upgrade is refused. */
  onUpgrade(handler: UpgradeHandler): void;
}

/** An HTTP upgrade request (a WebSocket handshake) as node:http hands it over. */
export type UpgradeHandler = (request: IncomingMessage, socket: Duplex, head: Buffer) => void;

interface Route {
  readonly method: string;
  readonly key: string;
  readonly segments: readonly string[];
  readonly handler: RouteHandler;
}

const CONTROL_PREFIX = '/__sim/';
const DEFAULT_MAX_BODY = 64 * 1024 * 1024;
const DEFAULT_LOG_LIMIT = 1000;

const defaultErrorBody = (status: number): unknown => ({
  error: { message: `Simulated HTTP ${status}.`, type: 'server_error', code: null },
});
const defaultNotFound = (method: string, path: string): ErrorAnswer => ({
  status: 404,
  body: { error: { message: `Invalid URL (${method} ${path})`, type: 'invalid_request_error', code: null } },
});

function splitPath(path: string): string[] {
  return path.split('/').filter(Boolean);
}

function matchRoute(route: Route, method: string, segments: readonly string[]): Record<string, string> | undefined {
  if (route.method !== method || route.segments.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let index = 0; index < segments.length; index += 1) {
    const pattern = route.segments[index];
    if (pattern.startsWith(':')) params[pattern.slice(1)] = decodeURIComponent(segments[index]);
    else if (pattern !== segments[index]) return undefined;
  }
  return params;
}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        resolve(undefined);
        req.removeAllListeners('data');
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

interface ParsedBody {
  body: unknown;
  form: MultipartForm | undefined;
  error: string | undefined;
}

function parseBody(raw: Buffer, contentType: string | undefined): ParsedBody {
  if (raw.length === 0) return { body: undefined, form: undefined, error: undefined };
  const boundary = multipartBoundary(contentType);
  if (boundary) {
    try {
      return { body: undefined, form: parseMultipart(raw, boundary), error: undefined };
    } catch (error) {
      if (error instanceof MultipartError) return { body: undefined, form: undefined, error: 'invalid_multipart' };
      throw error;
    }
  }
  if (contentType && /^application\/x-www-form-urlencoded/i.test(contentType)) {
    return { body: Object.fromEntries(new URLSearchParams(raw.toString('utf8'))), form: undefined, error: undefined };
  }
  // JSON is the default: several clients omit the content type.
  try {
    return { body: JSON.parse(raw.toString('utf8')) as unknown, form: undefined, error: undefined };
  } catch {
    return { body: undefined, form: undefined, error: 'invalid_json' };
  }
}

function logBody(parsed: ParsedBody, raw: Buffer): unknown {
  if (parsed.form) {
    return {
      fields: Object.fromEntries(parsed.form.fields.map((field) => [field.name, field.value])),
      files: parsed.form.files.map((file) => ({
        name: file.name,
        filename: file.filename,
        contentType: file.contentType,
        size: file.data.length,
      })),
    };
  }
  if (parsed.body !== undefined) return maskBody(parsed.body);
  return raw.length ? `(${raw.length} bytes, ${parsed.error ?? 'unparsed'})` : undefined;
}

function bearerOf(headers: IncomingHttpHeaders): string | undefined {
  const authorization = headers.authorization;
  if (authorization) {
    const match = /^\s*\S+\s+(.+)$/.exec(authorization);
    return match ? match[1].trim() : authorization.trim();
  }
  const key = headers['x-api-key'] ?? headers['api-key'] ?? headers['x-goog-api-key'];
  return typeof key === 'string' ? key : undefined;
}

function matchesFilter(entry: RequestLogEntry, filter: RequestFilter | undefined): boolean {
  if (!filter) return true;
  if (filter.route !== undefined && entry.route !== normalizeRouteKey(filter.route)) return false;
  if (filter.method !== undefined && entry.method !== filter.method.toUpperCase()) return false;
  if (filter.path !== undefined && entry.path !== filter.path) return false;
  return true;
}

export function createSimulator(options: SimulatorOptions): Simulator {
  const routes: Route[] = [];
  const controls = new Map<string, ControlHandler>();
  const faultBook = new FaultBook();
  let log: RequestLogEntry[] = [];
  let nextRequestId = 1;
  let server: Server | undefined;
  let upgradeHandler: UpgradeHandler | undefined;
  let baseUrl: string | undefined;
  let streaming = 0;
  const waiters = new Set<(entry: RequestLogEntry) => void>();
  const errorBody = options.errorBody ?? defaultErrorBody;
  const notFound = options.notFound ?? defaultNotFound;
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
  const logLimit = options.logLimit ?? DEFAULT_LOG_LIMIT;

  const routeKeys = () => routes.map((route) => route.key);

  const checkRoute = (route: string): string => {
    const key = normalizeRouteKey(route);
    if (key !== '*' && !routeKeys().includes(key)) throw new FaultValidationError(`No route "${key}". Routes: ${routeKeys().join(', ')}.`);
    return key;
  };

  const record = (entry: RequestLogEntry) => {
    log.push(entry);
    if (log.length > logLimit) log = log.slice(log.length - logLimit);
  };

  const settle = (entry: RequestLogEntry, response: SimResponse, started: number) => {
    entry.status = response.status;
    entry.streamed = response.streamed;
    entry.eventsSent = response.eventsSent;
    entry.bytesSent = response.bytesSent;
    entry.outcome = response.outcome === 'open' ? 'completed' : response.outcome;
    entry.durationMs = Math.round(performance.now() - started);
    for (const waiter of [...waiters]) waiter(entry);
  };

  async function handleControl(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): Promise<void> {
    const reply = (status: number, body: unknown) => {
      const payload = JSON.stringify(body);
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) });
      res.end(payload);
    };
    const key = `${req.method} ${path}`;
    try {
      if (key === 'GET /__sim/health') return reply(200, { name: options.name, ok: true, routes: routeKeys() });
      if (key === 'GET /__sim/faults') return reply(200, { faults: faultBook.list() });
      if (key === 'DELETE /__sim/faults') {
        faultBook.clear();
        return reply(200, { faults: [] });
      }
      if (key === 'POST /__sim/faults') {
        const raw = (await readBody(req, 1024 * 1024)) ?? Buffer.alloc(0);
        let input: unknown;
        try {
          input = JSON.parse(raw.toString('utf8'));
        } catch {
          return reply(400, { error: { code: 'invalid_json', message: 'The body is not JSON.' } });
        }
        const items = Array.isArray(input)
          ? input
          : input && typeof input === 'object' && Array.isArray((input as { faults?: unknown }).faults)
            ? (input as { faults: unknown[] }).faults
            : [input];
        const parsed = items.map((item) => parseFaultSpec(item)).map(({ route, spec }) => ({ route: checkRoute(route), spec }));
        const added = parsed.map(({ route, spec }) => faultBook.add(route, spec));
        return reply(201, { faults: added });
      }
      if (key === 'GET /__sim/requests') {
        const filter: RequestFilter = {
          route: query.get('route') ?? undefined,
          method: query.get('method') ?? undefined,
          path: query.get('path') ?? undefined,
        };
        const since = Number(query.get('since') ?? 0);
        const entries = log.filter((entry) => entry.id > since && matchesFilter(entry, filter));
        return reply(200, {
          requests: query.get('full') === '1' ? entries : entries.map((entry) => ({ ...entry, body: abbreviate(entry.body) })),
          openStreams: streaming,
        });
      }
      if (key === 'DELETE /__sim/requests') {
        log = [];
        return reply(200, { requests: [] });
      }
      const control = controls.get(key);
      if (control) {
        const raw = (await readBody(req, 1024 * 1024)) ?? Buffer.alloc(0);
        let body: unknown;
        try {
          body = raw.length ? JSON.parse(raw.toString('utf8')) : undefined;
        } catch {
          return reply(400, { error: { code: 'invalid_json', message: 'The body is not JSON.' } });
        }
        const answer = await control({ body, query });
        return reply(answer.status, answer.body);
      }
      return reply(404, { error: { code: 'not_found', message: `No control route ${key}.` } });
    } catch (error) {
      if (error instanceof FaultValidationError) return reply(400, { error: { code: 'invalid_fault', message: error.message } });
      throw error;
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const method = (req.method ?? 'GET').toUpperCase();
    const url = new URL(req.url ?? '/', 'http://sim.local');
    const path = url.pathname;
    if (path.startsWith(CONTROL_PREFIX)) return handleControl(req, res, path, url.searchParams);

    const segments = splitPath(path);
    let matched: { route: Route; params: Record<string, string> } | undefined;
    for (const route of routes) {
      const params = matchRoute(route, method, segments);
      if (params) {
        matched = { route, params };
        break;
      }
    }
    const fault = matched ? faultBook.take(matched.route.key) : undefined;
    const raw = await readBody(req, maxBody);
    const parsed = raw ? parseBody(raw, req.headers['content-type']) : { body: undefined, form: undefined, error: 'too_large' };
    // Some vendors also take the key as `?key=` (the :generateContent API): fingerprinted and masked like a header.
    const credential = bearerOf(req.headers) ?? url.searchParams.get('key') ?? undefined;
    const entry: RequestLogEntry = {
      id: nextRequestId++,
      at: new Date().toISOString(),
      method,
      path,
      query: maskBody(Object.fromEntries(url.searchParams)) as Record<string, string>,
      route: matched?.route.key ?? null,
      headers: maskHeaders(req.headers),
      credentialFingerprint: credential ? fingerprintSecret(credential) : undefined,
      body: logBody(parsed, raw ?? Buffer.alloc(0)),
      status: undefined,
      streamed: false,
      eventsSent: 0,
      bytesSent: 0,
      outcome: 'open',
      faults: fault ? faultKinds(fault) : [],
      durationMs: undefined,
    };
    record(entry);
    const response = new SimResponse(res, fault, () => (streaming += 1));
    const abort = new AbortController();
    res.on('close', () => {
      if (response.streamed) streaming -= 1;
      if (!res.writableFinished) abort.abort();
      settle(entry, response, started);
    });

    if (!matched) {
      const answer = notFound(method, path);
      return response.json(answer.status, answer.body, answer.headers);
    }
    if (!raw) return response.json(413, errorBody(413, matched.route.key));

    const request: SimRequest = {
      id: entry.id,
      method,
      path,
      query: url.searchParams,
      routeKey: matched.route.key,
      params: matched.params,
      headers: req.headers,
      rawBody: raw,
      body: parsed.body,
      form: parsed.form,
      bodyError: parsed.error,
      signal: abort.signal,
      header(name) {
        const value = req.headers[name.toLowerCase()];
        return Array.isArray(value) ? value[0] : value;
      },
    };

    if (fault?.latencyMs) {
      try {
        await delay(fault.latencyMs, undefined, { signal: abort.signal });
      } catch {
        return; // The client gave up while we waited.
      }
    }
    if (fault?.status !== undefined) {
      const body = fault.body === undefined ? errorBody(fault.status, matched.route.key) : fault.body;
      if (typeof body === 'string') return response.send(fault.status, body, 'text/plain; charset=utf-8');
      return response.json(fault.status, body);
    }
    try {
      await matched.route.handler(request, response);
    } catch (error) {
      if (!response.headersSent) await response.json(500, errorBody(500, matched.route.key));
      else response.cut('cut-by-simulator');
      if (process.env.SIM_DEBUG) console.error(`[sim:${options.name}] ${matched.route.key} failed:`, error);
      return;
    }
    // A handler that returned without answering gets a clean end, not a hung socket.
    if (!response.headersSent && !response.closed) await response.json(500, errorBody(500, matched.route.key));
    else response.endStream();
  }

  const simulator: Simulator = {
    name: options.name,
    get url(): string {
      if (!baseUrl) throw new Error(`Simulator ${options.name} is not started.`);
      return baseUrl;
    },
    route(method, path, handler) {
      const upper = method.toUpperCase();
      const key = `${upper} ${path}`;
      if (routes.some((route) => route.key === key)) throw new Error(`Route ${key} is already registered.`);
      routes.push({ method: upper, key, segments: splitPath(path), handler });
    },
    control(method, path, handler) {
      if (!path.startsWith(CONTROL_PREFIX)) throw new Error(`A control route lives under ${CONTROL_PREFIX}: ${path}.`);
      controls.set(`${method.toUpperCase()} ${path}`, handler);
    },
    async start(port = 0) {
      if (baseUrl) return baseUrl;
      server = createServer({ keepAliveTimeout: 30_000 }, (req, res) => {
        handle(req, res).catch((error: unknown) => {
          if (process.env.SIM_DEBUG) console.error(`[sim:${options.name}]`, error);
          if (!res.headersSent) res.writeHead(500).end();
          else res.destroy();
        });
      });
      server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
        if (upgradeHandler) upgradeHandler(req, socket, head);
        else socket.destroy();
      });
      await new Promise<void>((resolve, reject) => {
        server!.once('error', reject);
        server!.listen(port, '127.0.0.1', () => resolve());
      });
      baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      return baseUrl;
    },
    async close() {
      const current = server;
      server = undefined;
      baseUrl = undefined;
      if (!current) return;
      await new Promise<void>((resolve) => {
        current.close(() => resolve());
        current.closeAllConnections();
      });
    },
    fault(route, spec) {
      return faultBook.add(checkRoute(route), spec);
    },
    clearFaults() {
      faultBook.clear();
    },
    faults() {
      return faultBook.list();
    },
    requests(filter) {
      return log.filter((entry) => matchesFilter(entry, filter));
    },
    lastRequest(filter) {
      for (let index = log.length - 1; index >= 0; index -= 1) if (matchesFilter(log[index], filter)) return log[index];
      return undefined;
    },
    clearRequests() {
      log = [];
    },
    waitForRequest(predicate, waitOptions = {}) {
      const done = log.find((entry) => entry.outcome !== 'open' && predicate(entry));
      if (done) return Promise.resolve(done);
      const timeoutMs = waitOptions.timeoutMs ?? 5000;
      return new Promise((resolve, reject) => {
        const waiter = (entry: RequestLogEntry) => {
          if (!predicate(entry)) return;
          clearTimeout(timer);
          waiters.delete(waiter);
          resolve(entry);
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`Simulator ${options.name}: no matching request ended within ${timeoutMs} ms.`));
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
    openStreams() {
      return streaming;
    },
    onUpgrade(handler) {
      upgradeHandler = handler;
    },
  };
  return simulator;
}
