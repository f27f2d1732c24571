import type { FastifyReply } from 'fastify';
import type { ChatRoutes } from './plugin.js';
import { z } from 'zod';
import { lazy } from '../../common/lazy.js';
import { AGENT_IDS } from '../agents/catalog.js';
import type { RunLine } from '../chat-service.js';
import { prepareCommand, type CommandLine } from '../commands/index.js';
import { acceptedHeaders } from '../http/accepted-headers.js';
import { NdjsonStream } from '../http/ndjson-stream.js';
import { validatePrompt } from '../prompt.js';
import { parseWith } from '../../common/validation.js';

const sessionId = lazy(() => z.string().min(1).max(100));

const MessageBody = lazy(() =>
  z.object({
    prompt: z.string(),
    sessionId: sessionId.optional(),
    agent: z.enum(AGENT_IDS).optional(),
  }),
);

const CommandBody = lazy(() =>
  z.object({
    text: z.string().min(1).max(70_000),
    sessionId: sessionId.optional(),
    agent: z.enum(AGENT_IDS).optional(),
  }),
);

/**
 * The NDJSON answer of one request: a run's `accepted` becomes response
 * headers (opening the stream), every other line a line.
 */
class RunResponse {
  stream: NdjsonStream | undefined;

  constructor(
    private readonly reply: FastifyReply,
    private readonly maxBufferedBytes: number,
  ) {}

  take(line: RunLine | CommandLine): void {
    if (line.type === 'accepted') {
      this.stream ??= new NdjsonStream(this.reply, this.maxBufferedBytes, acceptedHeaders(line));
      return;
    }
    this.stream ??= new NdjsonStream(this.reply, this.maxBufferedBytes);
    this.stream.write(line);
  }
}

/** POST /api/message and POST /api/command: both answer an NDJSON stream. */
export const runRoutes: ChatRoutes = async (app, { runtime }) => {
  const { service } = runtime;
  app.post('/api/message', async (request, reply) => {
    const body = parseWith(MessageBody, request.body, { what: 'message body' });
    const prompt = validatePrompt(body.prompt);
    // Checked before the stream opens so a bad session is a plain 404.
    const session = service.resolveSession(body.sessionId);

    // The stream opens when the prompt is accepted, so a refusal before it is an ordinary error answer.
    const response = new RunResponse(reply, service.config.streamMaxBufferedBytes);
    const accepted = service.submit({ prompt, sessionId: session, agent: body.agent }, (line) => {
      response.take(line);
      if (line.type === 'done') response.stream?.end();
    });
    // A client that leaves only stops its copy of the stream; the run goes on (see /cancel).
    response.stream?.onClientClose(accepted.detach);
  });

  app.post('/api/command', async (request, reply) => {
    const body = parseWith(CommandBody, request.body, { what: 'command body' });
    const command = prepareCommand(runtime, body.text, { sessionId: body.sessionId, agent: body.agent });
    const response = new RunResponse(reply, service.config.streamMaxBufferedBytes);
    try {
      await command((line) => response.take(line));
    } catch (error) {
      // Refused before any line: an ordinary error answer; after: the stream says so.
      if (!response.stream) throw error;
      response.stream.write({ type: 'done', status: 'error', reason: (error as Error).message });
    }
    response.stream?.end();
  });
};
