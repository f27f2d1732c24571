// The zeta MCP simulator in its own process, so a benchmark measures the
// studio's event loop without the simulator's rendering on it. argv[2]: task
// latency (ms). Sends `{type:'ready', endpoint, token, url}`; stops on `{type:'stop'}`.
import { startZetaSimulator } from '../../src/sim/zeta/index.js';

const sim = await startZetaSimulator({ latencyMs: Number(process.argv[2] ?? 0) });
process.send?.({ type: 'ready', endpoint: sim.endpoint, token: sim.token, url: sim.url });
process.on('message', (message: { type: string }) => {
  if (message.type === 'stop') void sim.close().then(() => process.exit(0));
});
