import { EXIT_CODES } from '../common/errors.js';
import { exitCodeFor, isErrorCode } from '../studio/errors.js';
import { readDescriptor } from '../studio/descriptor.js';
import { studioPaths } from '../studio/paths.js';
import { DEFAULT_PORT } from '../studio/constants.js';

/** An error the CLI reports and exits with; `exitCode` comes from the one code table. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
    readonly code?: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

export interface ServerChoice {
  url: string;
  source: 'flag' | 'env' | 'descriptor' | 'default';
}

/** Server discovery: --server, then SVC_SERVER, then the descriptor's backend.url, then the default port. */
export function discoverServer(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): ServerChoice {
  if (flag) return { url: flag.replace(/\/+$/, ''), source: 'flag' };
  if (env.SVC_SERVER) return { url: env.SVC_SERVER.replace(/\/+$/, ''), source: 'env' };
  const descriptor = readDescriptor(studioPaths(env).descriptorFile);
  if (descriptor?.backend?.url) return { url: descriptor.backend.url, source: 'descriptor' };
  return { url: `http://127.0.0.1:${DEFAULT_PORT}`, source: 'default' };
}

export interface RequestOptions {
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Client-side time budget; past it the CLI exits with the timeout code. */
  timeoutMs?: number;
}

/** The one HTTP client of the CLI: it owns the base URL, the token, timeouts and error mapping. */
export class StudioClient {
  constructor(
    readonly server: ServerChoice,
    readonly token: string | undefined = process.env.SVC_TOKEN,
  ) {}

  /** Sends a request; answers the raw Response so streaming commands can read the body. */
  async fetch(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    const signals = [options.signal, options.timeoutMs ? AbortSignal.timeout(options.timeoutMs) : undefined].filter(
      (signal): signal is AbortSignal => signal !== undefined,
    );
    let response: Response;
    try {
      response = await fetch(`${this.server.url}${path}`, {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        signal: signals.length ? AbortSignal.any(signals) : undefined,
      });
    } catch (error) {
      throw this.transportError(error);
    }
    if (!response.ok) throw await errorFromResponse(response);
    return response;
  }

  /**
   * The answer's JSON. An empty success (204, or a 200 without a body) is
   * `undefined`; a body that is not JSON is a clear error, never a crash.
   */
  async json<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const response = await this.fetch(method, path, options);
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      throw this.transportError(error);
    }
    if (text.trim() === '') return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new CliError(
        `The server at ${this.server.url} answered ${path} with something that is not JSON: ${text.slice(0, 120)}`,
        EXIT_CODES.upstream,
        'BAD_ANSWER',
      );
    }
  }

  transportError(error: unknown): CliError {
    const name = (error as Error)?.name;
    if (name === 'TimeoutError')
      return new CliError(`The server at ${this.server.url} did not answer in time.`, EXIT_CODES.timeout, 'CLIENT_TIMEOUT');
    if (name === 'AbortError') return new CliError('Cancelled.', EXIT_CODES.internal, 'CANCELLED');
    const hint = this.server.source === 'default' ? ' Start it with `svc serve` (or pass --server).' : '';
    return new CliError(`Cannot reach the studio at ${this.server.url}.${hint}`, EXIT_CODES.unreachable, 'UNREACHABLE');
  }
}

const asText = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/**
 * Turns an error answer into a CliError with the table's exit code. Reads our
 * shape (`{ error: { code, message, details } }`) and what other servers send:
 * `{ error: "Not Found", code?, message?, statusCode }`, `{ code, message }`,
 * plain text. Without a known code the HTTP status decides the exit code.
 */
export async function errorFromResponse(response: Response): Promise<CliError> {
  const statusExit =
    response.status >= 500
      ? EXIT_CODES.upstream
      : response.status === 401 || response.status === 403
        ? EXIT_CODES.auth
        : EXIT_CODES.bad_request;
  let text = '';
  try {
    text = await response.text();
  } catch {
    // The body broke off: the status is all there is.
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const record = body && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  const nested = record.error && typeof record.error === 'object' ? (record.error as Record<string, unknown>) : undefined;
  const code =
    asText(nested?.code) ??
    asText(record.code) ??
    (typeof record.error === 'string' && isErrorCode(record.error) ? record.error : undefined);
  const message =
    asText(nested?.message) ??
    asText(record.message) ??
    asText(record.error) ??
    (text.trim().slice(0, 200) || `HTTP ${response.status} ${response.statusText}`);
  return new CliError(message, code && isErrorCode(code) ? exitCodeFor(code) : statusExit, code, nested?.details);
}
