// Child process: an SSE server in one of three modes, publishing at a fixed rate.
//   argv[2] = 'channel'  — EventChannel on the product's Fastify app (GET /api/events), replay kept in memory (the chat server's)
//   argv[2] = 'log'      — the same over the studio's event log (a SQLite file in a temp dir: every publish is an INSERT)
//   argv[2] = 'baseline' — bare node:http: every listener gets res.write of the same frame bytes
// Messages:
//   out { type: 'ready', url }
//   in  { type: 'publish', rate, seconds }   out { type: 'published', count, startedAt, endedAt, cpuMs }
//   in  { type: 'stats' }                    out { type: 'stats', maxRssKb }
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventChannel } from '../../src/common/events/channel.js';
import { createHttpApp } from '../../src/common/http-app.js';
import { studioEventChannel } from '../../src/studio/event-bus.js';
import { openDatabase } from '../../src/studio/store/database.js';
import { SqliteEventLog } from '../../src/studio/store/events.js';
import { wallClockMs } from './stats.js';

type Publish = (t: number) => void;

/** The studio's bus: its event log in a database of its own, removed when the process exits. */
function studioChannel(): EventChannel {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-events-'));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  return studioEventChannel(new SqliteEventLog(openDatabase(join(dir, 'studio.db'))));
}

async function startChannel(channel: EventChannel): Promise<{ url: string; publish: Publish }> {
  const app = createHttpApp({ bodyLimit: 1e6, security: { allowedOrigins: [] } });
  app.get('/api/events', (request, reply) => channel.serve(request, reply));
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/api/events`, publish: (t) => channel.publish('bench', 'tick', { t }) };
}

async function startBaseline(): Promise<{ url: string; publish: Publish }> {
  const listeners: ServerResponse[] = [];
  const runId = randomBytes(5).toString('hex');
  let seq = 0;
  const server = createServer((request, response) => {
    response.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' });
    response.write(': connected\n\n');
    listeners.push(response);
    response.on('close', () => listeners.splice(listeners.indexOf(response), 1));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/events`,
    publish: (t) => {
      seq += 1;
      const id = `${runId}-${seq}`;
      const frame = Buffer.from(`id: ${id}\ndata: ${JSON.stringify({ topic: 'bench', event: 'tick', t, id })}\n\n`);
      for (const response of listeners) response.write(frame);
    },
  };
}

/** Publishes `rate` events per second for `seconds`, catching up after timer lateness so the rate holds. */
function run(publish: Publish, rate: number, seconds: number): Promise<{ count: number; startedAt: number; endedAt: number }> {
  return new Promise((resolve) => {
    const startedAt = wallClockMs();
    const total = Math.round(rate * seconds);
    let count = 0;
    const tick = () => {
      const due = Math.min(total, Math.floor(((wallClockMs() - startedAt) * rate) / 1000));
      while (count < due) {
        publish(wallClockMs());
        count += 1;
      }
      if (count < total) setTimeout(tick, 1);
      else resolve({ count, startedAt, endedAt: wallClockMs() });
    };
    tick();
  });
}

const mode = process.argv[2];
const server =
  mode === 'channel'
    ? await startChannel(new EventChannel())
    : mode === 'log'
      ? await startChannel(studioChannel())
      : await startBaseline();
process.on('SIGTERM', () => process.exit(0));
process.on('message', async (message: { type: string; rate?: number; seconds?: number }) => {
  if (message.type === 'publish') {
    const cpuBefore = process.cpuUsage();
    const result = await run(server.publish, message.rate ?? 1000, message.seconds ?? 10);
    const cpu = process.cpuUsage(cpuBefore);
    process.send?.({ type: 'published', ...result, cpuMs: (cpu.user + cpu.system) / 1000 });
  } else if (message.type === 'stats') {
    process.send?.({ type: 'stats', maxRssKb: process.resourceUsage().maxRSS });
  } else if (message.type === 'stop') {
    process.exit(0);
  }
});
process.send?.({ type: 'ready', url: server.url });
