// The baseline of bench/startup: a plain Fastify server with one health route,
// started the same way as the studio (a node process printing one JSON line).
import Fastify from 'fastify';

const app = Fastify();
app.get('/api/health', async () => ({ ok: true }));
await app.listen({ host: '127.0.0.1', port: Number(process.argv[2] ?? 0) });
process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${app.server.address().port}` })}\n`);
