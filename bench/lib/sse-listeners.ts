// Child process: N raw node:http SSE listeners. Each data frame's JSON carries
// `"t":<publish wall-clock ms>`; the lag is arrival time minus t. Messages:
//   in  { type: 'connect', url, count }      out { type: 'connected' }
//   in  { type: 'reset' }                    out { type: 'reset' }        (forget samples, e.g. after a warm-up)
//   in  { type: 'wait', expected }           out { type: 'caught-up', deliveries, lastArrival }
//   in  { type: 'report' }                   out { type: 'report', ...ListenerReport }
import { get, type IncomingMessage } from 'node:http';
import { percentile, Samples, wallClockMs } from './stats.js';

export interface ListenerReport {
  type: 'report';
  deliveries: number;
  /** Frames per listener: min and max (a listener that fell behind or was cut shows here). */
  minPerListener: number;
  maxPerListener: number;
  firstArrival: number;
  lastArrival: number;
  lagP50: number;
  lagP99: number;
  lagMax: number;
  maxRssKb: number;
}

let lags = new Samples();
const perListener: number[] = [];
let firstArrival = Number.POSITIVE_INFINITY;
let lastArrival = 0;

function listen(url: string, index: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = get(url, { agent: false, headers: { accept: 'text/event-stream' } }, (response: IncomingMessage) => {
      if (response.statusCode !== 200) return reject(new Error(`listener ${index}: HTTP ${response.statusCode}`));
      perListener[index] = 0;
      let buffer = '';
      response.setEncoding('latin1');
      response.on('data', (chunk: string) => {
        const now = wallClockMs();
        buffer += chunk;
        let end = buffer.indexOf('\n\n');
        let start = 0;
        while (end !== -1) {
          const at = buffer.indexOf('"t":', start);
          if (at !== -1 && at < end) {
            lags.push(now - Number.parseFloat(buffer.slice(at + 4, buffer.indexOf(',', at))));
            perListener[index] += 1;
            if (now < firstArrival) firstArrival = now;
            lastArrival = now;
          }
          start = end + 2;
          end = buffer.indexOf('\n\n', start);
        }
        buffer = buffer.slice(start);
      });
      resolve();
    });
    request.on('error', reject);
  });
}

const total = () => perListener.reduce((sum, count) => sum + count, 0);

process.on('message', async (message: { type: string; url?: string; count?: number; expected?: number }) => {
  if (message.type === 'connect') {
    await Promise.all(Array.from({ length: message.count ?? 0 }, (_, index) => listen(message.url as string, index)));
    process.send?.({ type: 'connected' });
  } else if (message.type === 'reset') {
    lags = new Samples();
    perListener.fill(0);
    firstArrival = Number.POSITIVE_INFINITY;
    lastArrival = 0;
    process.send?.({ type: 'reset' });
  } else if (message.type === 'wait') {
    // Let in-flight frames arrive (bounded: a listener that lost frames must not hang the bench).
    const deadline = Date.now() + 10_000;
    while (total() < (message.expected ?? 0) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    process.send?.({ type: 'caught-up', deliveries: total(), lastArrival });
  } else if (message.type === 'report') {
    const sorted = lags.sorted();
    const report: ListenerReport = {
      type: 'report',
      deliveries: total(),
      minPerListener: Math.min(...perListener),
      maxPerListener: Math.max(...perListener),
      firstArrival,
      lastArrival,
      lagP50: percentile(sorted, 0.5),
      lagP99: percentile(sorted, 0.99),
      lagMax: sorted.length ? sorted[sorted.length - 1] : Number.NaN,
      maxRssKb: process.resourceUsage().maxRSS,
    };
    process.send?.(report);
  }
});
