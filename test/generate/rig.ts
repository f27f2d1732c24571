import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSse } from '../../src/common/events/client.js';
import {
  createOauthSession,
  startResponsesSimulator,
  type OauthSessionOptions,
  type ResponsesSimulator,
} from '../../src/sim/responses-simulator.js';
import { startStudio, type RunningStudio } from '../../src/studio/main.js';

// A studio wired to the Responses simulator over real HTTP, with its own
// state dir and (optionally) a chat OAuth session file.

export interface Rig {
  readonly sim: ResponsesSimulator;
  readonly studio: RunningStudio;
  readonly home: string;
  /** Where the chat session file is (written only when `oauth` was asked for). */
  readonly authFile: string;
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<Response>;
  get(path: string): Promise<Response>;
  stop(): Promise<void>;
}

export interface RigOptions {
  /** Put OMNI_API_KEY in the environment (default true). */
  readonly apiKey?: boolean | string;
  /** Write a chat session file (default: none). */
  readonly oauth?: OauthSessionOptions | false;
  readonly env?: Record<string, string>;
  readonly simOptions?: Parameters<typeof startResponsesSimulator>[0];
  /** Use an already running simulator (it is not closed by stop). */
  readonly sim?: ResponsesSimulator;
  /** Most time to receive a request (default 30 s). */
  readonly requestTimeoutMs?: number;
}

export async function startRig(options: RigOptions = {}): Promise<Rig> {
  const sim = options.sim ?? (await startResponsesSimulator(options.simOptions));
  const home = mkdtempSync(join(tmpdir(), 'svc-gen-'));
  const authFile = join(home, 'chat-auth.json');
  if (options.oauth) {
    writeFileSync(authFile, `${JSON.stringify(createOauthSession(sim, options.oauth), null, 2)}\n`);
    chmodSync(authFile, 0o600);
  }
  const key = options.apiKey === false ? undefined : typeof options.apiKey === 'string' ? options.apiKey : sim.apiKey;
  const studio = await startStudio({
    env: { SVC_HOME: home, PATH: process.env.PATH, SVC_OAUTH_AUTH_FILE: authFile, ...(key ? { OMNI_API_KEY: key } : {}), ...options.env },
    port: 0,
    descriptor: false,
    requestTimeoutMs: options.requestTimeoutMs,
    upstreams: { api: sim.apiBaseUrl, oauth: sim.backendBaseUrl, 'oauth.issuer': sim.issuerUrl },
  });
  return {
    sim,
    studio,
    home,
    authFile,
    post: (path, body, headers = {}) =>
      fetch(`${studio.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      }),
    get: (path) => fetch(`${studio.url}${path}`),
    async stop() {
      await studio.close();
      if (!options.sim) await sim.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

export interface StreamedEvent {
  readonly id?: string;
  readonly event: string;
  readonly [field: string]: unknown;
}

/** Reads an SSE body to its end (or until `until` says stop), parsing each frame's JSON. */
export async function collectEvents(response: Response, until?: (event: StreamedEvent) => boolean): Promise<StreamedEvent[]> {
  const events: StreamedEvent[] = [];
  for await (const message of readSse(response.body as ReadableStream<Uint8Array>)) {
    const event = JSON.parse(message.data) as StreamedEvent;
    events.push(event);
    if (until?.(event)) break;
  }
  return events;
}

/** Follows GET /api/events; `next` resolves with the events of a request up to its done/error. */
export async function followEvents(
  studioUrl: string,
  signal: AbortSignal,
): Promise<{ until(requestId: string): Promise<StreamedEvent[]> }> {
  const response = await fetch(`${studioUrl}/api/events`, { headers: { accept: 'text/event-stream' }, signal });
  const seen: StreamedEvent[] = [];
  const waiters: Array<() => void> = [];
  void (async () => {
    try {
      for await (const message of readSse(response.body as ReadableStream<Uint8Array>)) {
        seen.push(JSON.parse(message.data) as StreamedEvent);
        for (const wake of waiters.splice(0)) wake();
      }
    } catch {
      // Aborted at the end of the test.
    }
  })();
  return {
    async until(requestId) {
      for (;;) {
        const mine = seen.filter((event) => event.requestId === requestId);
        if (mine.some((event) => event.event === 'done' || event.event === 'error')) return mine;
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
  };
}

/** A small solid PNG (for edit inputs and masks). */
export async function solidPng(width: number, height: number, alpha = 1): Promise<string> {
  const sharp = (await import('sharp')).default;
  const bytes = await sharp({ create: { width, height, channels: 4, background: { r: 200, g: 80, b: 40, alpha } } })
    .png()
    .toBuffer();
  return `data:image/png;base64,${bytes.toString('base64')}`;
}
