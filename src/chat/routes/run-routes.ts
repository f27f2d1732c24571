import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { AGENT_IDS } from '../agents/catalog.js';
import type { ChatService, RunLine } from '../chat-service.js';
import { prepareCommand } from '../commands.js';
import { NdjsonStream } from '../http/ndjson-stream.js';
import { validatePrompt } from '../prompt.js';
import { parseWith } from './body.js';

const sessionId = z.string().min(1).max(100);

const MessageBody = z.object({
  prompt: z.string(),
  sessionId: sessionId.optional(),
  agent: z.enum(AGENT_IDS).optional(),
});

const CommandBody = z.object({
  text: z.string().min(1).max(70_000),
  sessionId: sessionId.optional(),
  agent: z.enum(AGENT_IDS).optional(),
});

/** POST /api/message and POST /api/command: both answer an NDJSON stream. */
export function registerRunRoutes(app: FastifyInstance, service: ChatService, env: Readonly<Record<string, string | undefined>>): void {
  app.post('/api/message', async (request, reply) => {
    const body = parseWith(MessageBody, request.body, 'message body');
    const prompt = validatePrompt(body.prompt);
    // Checked before the stream opens so a bad session is a plain 404.
    const session = service.resolveSession(body.sessionId);

    // The stream opens with the first line (`accepted`), so a refusal before it is an ordinary error answer.
    let stream: NdjsonStream | undefined;
    const accepted = service.submit({ prompt, sessionId: session, agent: body.agent }, (line: RunLine) => {
      stream ??= new NdjsonStream(reply, service.config.streamMaxBufferedBytes);
      stream.write(line);
      if (line.type === 'done') stream.end();
    });
    // A client that leaves only stops its copy of the stream; the run goes on (see /cancel).
    stream?.onClientClose(accepted.detach);
  });

  app.post('/api/command', async (request, reply) => {
    const body = parseWith(CommandBody, request.body, 'command body');
    const command = prepareCommand(service, env, body.text, { sessionId: body.sessionId, agent: body.agent });
    let stream: NdjsonStream | undefined;
    try {
      await command((line) => {
        stream ??= new NdjsonStream(reply, service.config.streamMaxBufferedBytes);
        stream.write(line);
      });
    } catch (error) {
      // Refused before any line: an ordinary error answer; after: the stream says so.
      if (!stream) throw error;
      stream.write({ type: 'done', status: 'error', reason: (error as Error).message });
    }
    stream?.end();
  });
}
