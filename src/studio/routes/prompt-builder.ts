import { parseWith } from '../../common/validation.js';
import { promptBuilderChatRequest, promptBuilderConfigRequest } from '../api/index.js';
import { builderChat } from '../prompt-builder/chat.js';
import { builderConfig, saveBuilderConfig } from '../prompt-builder/config.js';
import type { StudioRoutes } from './plugin.js';

// The prompt builder: POST /api/prompt-builder/chat, GET/PUT /api/prompt-builder/config.

export const promptBuilderRoutes: StudioRoutes = async (app, { ctx }) => {
  app.post('/api/prompt-builder/chat', async (request, reply) => {
    const body = parseWith(promptBuilderChatRequest, request.body);
    // A client that leaves stops the upstream call.
    const controller = new AbortController();
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) controller.abort();
    });
    return builderChat(ctx, body, controller.signal);
  });

  app.get('/api/prompt-builder/config', async () => builderConfig(ctx));

  app.put('/api/prompt-builder/config', async (request) => saveBuilderConfig(ctx, parseWith(promptBuilderConfigRequest, request.body)));
};
