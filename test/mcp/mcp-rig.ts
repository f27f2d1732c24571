import { connectEvents, type EventConnection } from '../../src/common/events/client.js';
import type { ChannelEvent } from '../../src/common/events/types.js';
import { startEtaSimulator, type EtaSimulator } from '../../src/sim/eta/index.js';
import { startZetaSimulator, type ZetaSimulator } from '../../src/sim/zeta/index.js';
import { startTestStudio, type TestStudio } from '../helpers/studio.js';

// A studio wired over real HTTP to the two MCP simulators (the official SDK's
// server on loopback), with short task latency and polls, and a live
// /api/events listener that keeps every event.

export interface McpRig {
  readonly studio: TestStudio;
  readonly zeta: ZetaSimulator;
  readonly eta: EtaSimulator;
  readonly events: ChannelEvent[];
  post(path: string, body: unknown): Promise<Response>;
  /** The events of one request until its terminal one (bounded). */
  until(requestId: string, timeoutMs?: number): Promise<ChannelEvent[]>;
  stop(): Promise<void>;
}

export async function startMcpRig(options: { latencyMs?: number; env?: Record<string, string> } = {}): Promise<McpRig> {
  const zeta = await startZetaSimulator({ latencyMs: options.latencyMs ?? 600 });
  const eta = await startEtaSimulator({ latencyMs: options.latencyMs ?? 600, holdMs: 200 });
  const studio = await startTestStudio({
    upstreams: { zeta: zeta.endpoint, eta: eta.endpoint },
    env: { ZETA_MCP_TOKEN: zeta.token, ETA_MCP_TOKEN: eta.token, SVC_MCP_POLL_MS: '150', ...options.env },
  });
  const events: ChannelEvent[] = [];
  let connection: EventConnection | undefined;
  await new Promise<void>((resolve) => {
    connection = connectEvents(`${studio.url}/api/events`, {
      onEvent: (event) => void events.push(event),
      onStatus: (status) => status === 'open' && resolve(),
    });
  });
  const terminal = (requestId: string) =>
    events.find(
      (event) => event.requestId === requestId && (event.event === 'done' || event.event === 'error') && event.slot === undefined,
    );
  return {
    studio,
    zeta,
    eta,
    events,
    post: (path, body) =>
      studio.request(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    async until(requestId, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (!terminal(requestId)) {
        if (Date.now() > deadline)
          throw new Error(
            `No terminal event for ${requestId} within ${timeoutMs} ms: ${JSON.stringify(events.filter((event) => event.requestId === requestId))}`,
          );
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return events.filter((event) => event.requestId === requestId && event.topic === 'generation');
    },
    async stop() {
      connection?.close();
      await studio.stop();
      await zeta.close();
      await eta.close();
    },
  };
}
