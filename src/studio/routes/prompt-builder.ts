import { parseWith } from '../../common/validation.js';
import { promptBuilderChatRequest, promptBuilderConfigRequest } from '../api/index.js';
import { watchClient } from '../jobs/delivery.js';
import { builderChat } from '../prompt-builder/chat.js';
import { builderConfig, saveBuilderConfig } from '../prompt-builder/config.js';
import type { StudioRoutes } from './plugin.js';

// The prompt builder: POST /api/prompt-builder/chat, GET/PUT /api/prompt-builder/config.

export const promptBuilderRoutes: StudioRoutes = async (app, { ctx }) => {
  app.post('/api/prompt-builder/chat', async (request, reply) => {
    // A client that leaves (even before the route ran) stops the upstream call.
    const controller = new AbortController();
    watchClient(request, reply).onGone(() => controller.abort());
    return builderChat(ctx, parseWith(promptBuilderChatRequest, request.body), controller.signal);
  });

  app.get('/api/prompt-builder/config', async () => builderConfig(ctx));

  app.put('/api/prompt-builder/config', async (request) => saveBuilderConfig(ctx, parseWith(promptBuilderConfigRequest, request.body)));
};
