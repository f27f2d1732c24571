// Child of bench/manager.ts: WORKERS chat servers (fake agents, real HTTP on
// loopback, each its own state dir) in this one process. On request each
// publishes events on its own channel carrying their publish time: mostly
// agent_output, every fifth a saved message, as a busy agent would.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChatServer, type RunningChatServer } from '../../src/chat/server.js';
import { wallClockMs } from './stats.js';

const count = Number(process.argv[2]);
// Every chat server keeps a process exit hook (it kills its agents); this process holds many.
process.setMaxListeners(count + 10);
const root = mkdtempSync(join(tmpdir(), 'bench-manager-workers-'));
const servers: RunningChatServer[] = [];
for (let index = 0; index < count; index += 1) {
  servers.push(
    await startChatServer({
      port: 0,
      demo: true,
      home: join(root, String(index)),
      env: { PATH: process.env.PATH, HOME: process.env.HOME },
    }),
  );
}
const sessions = servers.map((server) => server.service.store.currentSessionId());
process.send?.({ type: 'ready', urls: servers.map((server) => server.url) });

let sequence = 0;
/** One event on worker `index`, stamped with the publish time. */
function publishOne(index: number): void {
  sequence += 1;
  const sentAt = wallClockMs();
  const fields = { sessionId: sessions[index], traceId: `bench-${index}`, sentAt, sequence };
  if (sequence % 5 === 0)
    servers[index].channel.publish(
      'chat',
      'message',
      { ...fields, role: 'assistant', content: `answer ${sequence}`, messageId: `m-${sequence}` },
      { payloadId: `m-${sequence}` },
    );
  else servers[index].channel.publish('chat', 'agent_output', { ...fields, content: `piece ${sequence} `.repeat(4) });
}

process.on('message', (message: { type: string; ratePerWorker?: number; seconds?: number }) => {
  if (message.type === 'publish') {
    const perTick = (count * (message.ratePerWorker as number)) / 100;
    const total = Math.round(count * (message.ratePerWorker as number) * (message.seconds as number));
    let published = 0;
    let credit = 0;
    let next = 0;
    // Every 10 ms, the events due by then, round-robin over the workers.
    const timer = setInterval(() => {
      credit += perTick;
      while (credit >= 1 && published < total) {
        publishOne(next);
        next = (next + 1) % count;
        published += 1;
        credit -= 1;
      }
      if (published >= total) {
        clearInterval(timer);
        process.send?.({ type: 'published', count: published });
      }
    }, 10);
  } else if (message.type === 'stop') {
    void Promise.all(servers.map((server) => server.close())).then(() => {
      rmSync(root, { recursive: true, force: true });
      process.exit(0);
    });
  }
});
