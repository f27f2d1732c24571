import type { FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import { isLoopbackAddress } from './http-security.js';

export interface ListenOptions {
  host: string;
  /** Preferred port; 0 asks the OS for any free one. */
  port: number;
  /** How many following ports to try when the preferred one is taken. */
  attempts?: number;
  /** Needed to bind anywhere but loopback. */
  token?: string;
  /** The variable that sets the token, named in the refusal (default SVC_TOKEN). */
  tokenEnv?: string;
}

/** Refuses a bind beyond loopback without a token; servers call it before they create any state. */
export function assertBindAllowed(options: Pick<ListenOptions, 'host' | 'token' | 'tokenEnv'>): void {
  if (!isLoopbackAddress(options.host) && !options.token) {
    throw new Error(`Binding to ${options.host} exposes the server beyond this machine; set ${options.tokenEnv ?? 'SVC_TOKEN'} first.`);
  }
}

/**
 * Binds the preferred port, or the next free one when it is taken, and returns
 * the port actually bound so callers advertise the real one.
 */
export async function listenWithFallback(app: FastifyInstance, options: ListenOptions): Promise<number> {
  assertBindAllowed(options);
  const attempts = options.port === 0 ? 1 : (options.attempts ?? 20);
  let lastError: unknown;
  for (let offset = 0; offset < attempts; offset += 1) {
    const port = options.port === 0 ? 0 : options.port + offset;
    if (port > 65535) break;
    try {
      await app.listen({ host: options.host, port });
      return (app.server.address() as AddressInfo).port;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
      lastError = error;
    }
  }
  throw new Error(`No free port from ${options.port} (tried ${attempts}).`, { cause: lastError });
}

/**
 * Closes the server on SIGINT/SIGTERM: stop accepting, let in-flight requests
 * finish (bounded by `graceMs`), then run `cleanup` and exit 0. A second
 * signal exits 130 at once (the handler stays installed, so Node's default
 * never kills the process mid-cleanup).
 */
export function closeOnSignals(close: () => Promise<void>, graceMs = 10_000): void {
  let closing = false;
  const onSignal = () => {
    if (closing) process.exit(130);
    closing = true;
    const timer = setTimeout(() => {
      process.stderr.write(`Shutdown took longer than ${graceMs} ms; exiting.\n`);
      process.exit(1);
    }, graceMs);
    timer.unref();
    close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`Shutdown failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

/** How long in-flight requests get at shutdown before their sockets are cut. */
export const SHUTDOWN_GRACE_MS = 2000;

/**
 * Closes a Fastify app: stop accepting, let in-flight requests finish, then
 * cut what is left after `graceMs`. A connection that never sent a request (a
 * client's spare or speculative socket) is not "idle" to Node and would
 * otherwise hold close() open.
 */
export async function closeHttpApp(app: FastifyInstance, graceMs = SHUTDOWN_GRACE_MS): Promise<void> {
  const cut = setTimeout(() => app.server.closeAllConnections(), graceMs);
  try {
    await app.close();
  } finally {
    clearTimeout(cut);
  }
}
