// Child process: the Responses simulator on its own core, so its image
// rendering never shares an event loop with the process being measured.
//   argv[2] = optional JSON { generationDelayMs } (default 0: no simulated generation time)
//   out { type: 'ready', url, apiBaseUrl, apiKey }
//   in  { type: 'stop' }
import { startResponsesSimulator } from '../../src/sim/responses-simulator.js';

const { generationDelayMs = 0 } = JSON.parse(process.argv[2] ?? '{}') as { generationDelayMs?: number };
const sim = await startResponsesSimulator({ generationDelayMs });
process.send?.({ type: 'ready', url: sim.url, apiBaseUrl: sim.apiBaseUrl, apiKey: sim.apiKey });
process.on('message', async (message: { type: string }) => {
  if (message.type !== 'stop') return;
  await sim.close();
  process.exit(0);
});
