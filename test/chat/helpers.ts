import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connectEvents, type EventConnection } from '../../src/common/events/client.js';
import type { ChannelEvent } from '../../src/common/events/types.js';
import { ACCEPTED_HEADERS } from '../../src/chat/http/accepted-headers.js';
import { startChatServer, type RunningChatServer, type StartChatServerOptions } from '../../src/chat/server.js';

export const makeTempHome = (): string => mkdtempSync(join(tmpdir(), 'svc-chat-test-'));

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** `svc-chat serve --demo` as a child process (through tsx), so that it can be SIGKILLed; answers its URL. */
export async function serveChild(home: string): Promise<{ child: ChildProcess; url: string; stderr: () => string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/svc-chat.ts', 'serve', '--demo', '--port', '0', '--json'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, SVC_CHAT_HOME: home, SVC_CHAT_WORKDIR: home },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`no start line: ${output} ${stderr}`)), 20_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('\n')) {
        clearTimeout(timer);
        resolve((JSON.parse(output.split('\n')[0]) as { url: string }).url);
      }
    });
  });
  return { child, url, stderr: () => stderr };
}

/** Where a prompt went: the X-Chat-* headers of its NDJSON answer. */
export interface AcceptedRun {
  sessionId: string;
  traceId: string;
  messageId: string;
  agent: string;
  ahead: number;
}

export interface PostedLines {
  status: number;
  contentType: string | null;
  lines: Array<Record<string, unknown>>;
  /** From the response headers; undefined on answers that queued no run. */
  accepted?: AcceptedRun;
}

/** The accepted run named by a response's headers, if any. */
export function acceptedFrom(headers: Headers): AcceptedRun | undefined {
  const traceId = headers.get(ACCEPTED_HEADERS.traceId);
  if (traceId === null) return undefined;
  return {
    sessionId: String(headers.get(ACCEPTED_HEADERS.sessionId)),
    traceId,
    messageId: String(headers.get(ACCEPTED_HEADERS.messageId)),
    agent: String(headers.get(ACCEPTED_HEADERS.agent)),
    ahead: Number(headers.get(ACCEPTED_HEADERS.ahead)),
  };
}

export interface TestChatServer extends RunningChatServer {
  home: string;
  /** POSTs JSON and reads the whole NDJSON answer. */
  postLines(path: string, body: unknown): Promise<PostedLines>;
  postJson<T = Record<string, unknown>>(path: string, body: unknown): Promise<{ status: number; body: T }>;
  getJson<T = Record<string, unknown>>(path: string): Promise<{ status: number; body: T }>;
  stop(): Promise<void>;
}

/** A chat server on an ephemeral loopback port, fake agents, short kill grace, its own state dir. */
export async function startTestChat(options: StartChatServerOptions & { keepHome?: boolean } = {}): Promise<TestChatServer> {
  const home = options.home ?? makeTempHome();
  const server = await startChatServer({
    port: 0,
    demo: true,
    killGraceMs: 300,
    exitDrainMs: 300,
    workDir: home,
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
    ...options,
    home,
  });
  return {
    ...server,
    home,
    async postLines(path, body) {
      const response = await fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const text = await response.text();
      const lines = response.headers.get('content-type')?.startsWith('application/x-ndjson')
        ? text
            .split('\n')
            .filter(Boolean)
            .map((line) => JSON.parse(line) as Record<string, unknown>)
        : [JSON.parse(text) as Record<string, unknown>];
      return {
        status: response.status,
        contentType: response.headers.get('content-type'),
        lines,
        accepted: acceptedFrom(response.headers),
      };
    },
    async postJson(path, body) {
      const response = await fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: await response.json() };
    },
    async getJson(path) {
      const response = await fetch(`${server.url}${path}`);
      return { status: response.status, body: await response.json() };
    },
    async stop() {
      await server.close();
      if (!options.keepHome) rmSync(home, { recursive: true, force: true });
    },
  };
}

/** Waits (polling, bounded) until `check` returns a value; fails with `what` after `timeoutMs`. */
export async function waitFor<T>(what: string, check: () => T | undefined | false, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Nothing running or waiting, as the server itself says: an automatic turn (goal, orchestration)
 * is queued in the same tick as the end of the turn before, so an empty queue list means quiet.
 */
export async function waitIdle(server: { getJson<T>(path: string): Promise<{ body: T }> }, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { body } = await server.getJson<{ queues: unknown[] }>('/api/status');
    if (body.queues.length === 0) return;
    if (Date.now() > deadline) throw new Error('Timed out waiting for an idle server.');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export interface EventRecorder {
  events: ChannelEvent[];
  connection: EventConnection;
  /** Waits for the first event (from index `from`) matching the predicate. */
  waitFor(what: string, predicate: (event: ChannelEvent) => boolean, timeoutMs?: number): Promise<ChannelEvent>;
  close(): void;
}

/** Follows GET /api/events and records everything (opened before the test acts). */
export async function recordEvents(url: string): Promise<EventRecorder> {
  const events: ChannelEvent[] = [];
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const connection = connectEvents(`${url}/api/events`, {
    onEvent: (event) => events.push(event),
    onStatus: (status) => status === 'open' && open(),
  });
  await opened;
  return {
    events,
    connection,
    waitFor: (what, predicate, timeoutMs) => waitFor(what, () => events.find(predicate), timeoutMs),
    close: () => connection.close(),
  };
}

/** The pid a hanging fake agent put in its tool call's command. */
export function hangPid(command: unknown): number {
  const match = /# pid (\d+)/.exec(String(command));
  if (!match) throw new Error(`No pid in ${String(command)}`);
  return Number(match[1]);
}

/** Alive and not a zombie (an orphan's zombie may linger when PID 1 does not reap). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}
