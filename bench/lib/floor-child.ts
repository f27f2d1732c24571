// Child process: the least a gateway can do for one image, to show the floor
// of the studio's added overhead on this machine: one HTTP hop in, the same
// upstream call (SSE parsed, every event JSON-decoded, the image decoded), one
// atomic durable write (temp file, fsync, rename, fsync of the folder), one
// JSON answer. No validation, no job record, no history, no events.
//   argv[2] = JSON { apiBaseUrl, apiKey, transport? } (transport: 'fetch', the default, or 'http':
//             the upstream read over node:http as the studio reads it)
//   out { type: 'ready', url }
//   in  { type: 'stop' }
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFileAtomic } from '../../src/common/atomic-file.js';
import { callDirect, callDirectHttp } from './direct-call.js';

const {
  apiBaseUrl,
  apiKey,
  transport = 'fetch',
} = JSON.parse(process.argv[2]) as { apiBaseUrl: string; apiKey: string; transport?: 'fetch' | 'http' };
const call = transport === 'http' ? callDirectHttp : callDirect;
const dir = mkdtempSync(join(tmpdir(), 'svc-bench-floor-'));
let count = 0;

const server = createServer(async (request, response) => {
  let text = '';
  for await (const chunk of request) text += chunk;
  const body = JSON.parse(text) as object;
  const image = await call(apiBaseUrl, apiKey, body);
  const filename = `image-${count++}.png`;
  writeFileAtomic(join(dir, filename), image, 0o600);
  response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ filename, bytes: image.length }));
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address() as { port: number };
  process.send?.({ type: 'ready', url: `http://127.0.0.1:${address.port}` });
});
process.on('message', (message: { type: string }) => {
  if (message.type !== 'stop') return;
  server.close();
  rmSync(dir, { recursive: true, force: true });
  process.exit(0);
});
