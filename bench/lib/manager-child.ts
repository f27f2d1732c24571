// Child of bench/manager.ts: the manager following every worker, or (with
// `direct`) the baseline, a plain event client per worker with no cache. Both
// record, per event carrying `sentAt`, the delay until it reached them: for
// the manager, until its latest-state cache was updated.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectEvents, type EventConnection } from '../../src/common/events/client.js';
import type { ChannelEvent } from '../../src/common/events/types.js';
import { startManagerServer, type RunningManager } from '../../src/manager/server.js';
import { percentile, Samples, wallClockMs } from './stats.js';

const mode = process.argv[2] as 'manager' | 'direct';
let delays = new Samples();
let peakRss = process.memoryUsage().rss;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);

const record = (event: ChannelEvent | undefined) => {
  if (typeof event?.sentAt === 'number') delays.push(wallClockMs() - event.sentAt);
};

let manager: RunningManager | undefined;
const connections: EventConnection[] = [];
const home = mkdtempSync(join(tmpdir(), 'bench-manager-'));

process.on('message', async (message: { type: string; urls?: string[] }) => {
  if (message.type === 'follow') {
    const urls = message.urls as string[];
    if (mode === 'manager') {
      manager = await startManagerServer({ port: 0, home, workers: urls, env: { PATH: process.env.PATH, HOME: process.env.HOME } });
      manager.instances.onCacheUpdate = (_id, _change, event) => record(event);
      // Ready once every worker is online and its state was read.
      while (manager.instances.list().some((instance) => instance.health !== 'online'))
        await new Promise((resolve) => setTimeout(resolve, 50));
    } else {
      let open = 0;
      await new Promise<void>((resolve) => {
        for (const url of urls) {
          let counted = false;
          connections.push(
            connectEvents(`${url}/api/events`, {
              onEvent: record,
              onStatus: (status) => {
                if (status === 'open' && !counted) {
                  counted = true;
                  open += 1;
                  if (open === urls.length) resolve();
                }
              },
            }),
          );
        }
      });
    }
    process.send?.({ type: 'following' });
  } else if (message.type === 'reset') {
    delays = new Samples();
    peakRss = process.memoryUsage().rss;
    process.send?.({ type: 'reset' });
  } else if (message.type === 'report') {
    const sorted = delays.sorted();
    const rss = process.memoryUsage().rss;
    process.send?.({
      type: 'report',
      count: sorted.length,
      p50: percentile(sorted, 0.5),
      p99: percentile(sorted, 0.99),
      max: percentile(sorted, 1),
      rssMb: rss / 2 ** 20,
      peakRssMb: Math.max(peakRss, rss) / 2 ** 20,
    });
  } else if (message.type === 'stop') {
    clearInterval(sampler);
    for (const connection of connections) connection.close();
    await manager?.close();
    rmSync(home, { recursive: true, force: true });
    process.exit(0);
  }
});
process.send?.({ type: 'started' });
