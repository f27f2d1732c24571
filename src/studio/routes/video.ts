import { parseWith } from '../../common/validation.js';
import {
  videoAnalyzeRequest,
  videoEditRequest,
  videoExtendRequest,
  videoFrameQuery,
  videoGenerateRequest,
  API_LIMITS,
  REQUEST_ID_PATTERN,
} from '../api/index.js';
import { watchClient } from '../jobs/delivery.js';
import { addJobRoute } from '../jobs/route.js';
import { analyzeVideo, framePosition, historyFrames } from '../video/frames.js';
import { planVideoEdit, planVideoExtend, planVideoGenerate } from '../video/plan.js';
import { importRemoteVideo } from '../video/remote.js';
import type { StudioRoutes } from './plugin.js';

// Video (spec: Video, Endpoints): generate, edit and extend are jobs on the
// one job route (sync, async 202 + /api/events, per-request SSE); frame and
// analyze answer at once.

const VIDEO_HINTS = {
  requestId: { pattern: REQUEST_ID_PATTERN.source },
  prompt: { minLength: 1, maxLength: API_LIMITS.promptMaxChars },
};

export const videoRoutes: StudioRoutes = async (app, { ctx }) => {
  addJobRoute(app, ctx, {
    url: '/api/video/generate',
    parse: (request) => parseWith(videoGenerateRequest, request.body, { hints: VIDEO_HINTS }),
    plan: (ctx, body, requestId) => planVideoGenerate(ctx, body, requestId),
  });

  addJobRoute(app, ctx, {
    url: '/api/video/edit',
    parse: (request) => parseWith(videoEditRequest, request.body, { hints: VIDEO_HINTS }),
    plan: (ctx, body, requestId) => planVideoEdit(ctx, body, requestId),
  });

  addJobRoute(app, ctx, {
    url: '/api/video/extend',
    parse: (request) => parseWith(videoExtendRequest, request.body, { hints: VIDEO_HINTS }),
    // A remote source is fetched and kept in history; the job extends that file.
    plan: (ctx, body, requestId) =>
      planVideoExtend(ctx, body, requestId, async (url) => (await importRemoteVideo(ctx, url, requestId)).filename),
  });

  app.get('/api/video/frame', async (request, reply) => {
    const query = parseWith(videoFrameQuery, request.query);
    const { frames } = await historyFrames(ctx, query.filename, [framePosition(query.at)]);
    return reply.header('content-type', 'image/png').header('cache-control', 'private, max-age=3600').send(frames[0]);
  });

  app.post('/api/video/analyze', async (request, reply) => {
    // A client that leaves before the answer stops the planner calls.
    const controller = new AbortController();
    watchClient(request, reply).onGone(() => controller.abort());
    const body = parseWith(videoAnalyzeRequest, request.body);
    return analyzeVideo(ctx, body, controller.signal);
  });
};
