import { EXIT_CODES, exitCodeFor } from '../common/errors.js';
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

  async json<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const response = await this.fetch(method, path, options);
    try {
      return (await response.json()) as T;
    } catch (error) {
      throw this.transportError(error);
    }
  }

  transportError(error: unknown): CliError {
    const name = (error as Error)?.name;
    if (name === 'TimeoutError') return new CliError(`The server at ${this.server.url} did not answer in time.`, EXIT_CODES.timeout, 'CLIENT_TIMEOUT');
    if (name === 'AbortError') return new CliError('Cancelled.', EXIT_CODES.internal, 'CANCELLED');
    const hint = this.server.source === 'default' ? ' Start it with `svc serve` (or pass --server).' : '';
    return new CliError(`Cannot reach the studio at ${this.server.url}.${hint}`, EXIT_CODES.unreachable, 'UNREACHABLE');
  }
}

/** Turns an error answer (`{ error: { code, message, details } }`) into a CliError with the table's exit code. */
export async function errorFromResponse(response: Response): Promise<CliError> {
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    body = undefined;
  }
  const error = (body as { error?: unknown } | undefined)?.error;
  if (error && typeof error === 'object') {
    const { code, message, details } = error as { code?: string; message?: string; details?: unknown };
    return new CliError(message ?? `HTTP ${response.status}`, exitCodeFor(code), code, details);
  }
  if (typeof error === 'string') return new CliError(error, exitCodeFor(error), error);
  return new CliError(`HTTP ${response.status} ${response.statusText}`, response.status >= 500 ? EXIT_CODES.upstream : EXIT_CODES.bad_request);
}
