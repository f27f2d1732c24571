import { parseWith } from '../../common/validation.js';
import {
  API_LIMITS,
  COMMON_SIZES,
  GRAPH_ID_PATTERN,
  nodeGenerateRequest,
  nodeIdParam,
  REQUEST_ID_PATTERN,
  SIZE_RULE,
} from '../api/index.js';
import { getNode, planNode } from '../graphs/nodes.js';
import { imageJob, planImageJob } from '../jobs/plan.js';
import { addJobRoute } from '../jobs/route.js';
import type { StudioRoutes } from './plugin.js';

// Node generation: POST /api/node/generate (a root node, or a child edit of a
// parent node) and GET /api/node/:nodeId. One job path with classic
// generation: the one job route (sync, async 202, per-request SSE), planned by
// planImageJob, run by the image job handler as kind `node`.

/** What a client can send instead, per field, where the schema cannot say. */
const HINTS = {
  size: { examples: COMMON_SIZES, rule: SIZE_RULE },
  requestId: { pattern: REQUEST_ID_PATTERN.source },
  prompt: { minLength: 1, maxLength: API_LIMITS.promptMaxChars },
  sessionId: { pattern: GRAPH_ID_PATTERN.source },
  parentNodeId: { pattern: GRAPH_ID_PATTERN.source },
  nodeId: { pattern: GRAPH_ID_PATTERN.source },
};

export const nodeRoutes: StudioRoutes = async (app, { ctx }) => {
  addJobRoute(app, ctx, {
    url: '/api/node/generate',
    parse: (request) => parseWith(nodeGenerateRequest, request.body, { hints: HINTS }),
    async plan(ctx, body, requestId) {
      const {
        async: _async,
        requestId: _requestId,
        cancelOnDisconnect: _cancel,
        priority: _priority,
        references,
        sessionId,
        parentNodeId,
        addToGraph,
        position,
        ...fields
      } = body;
      const { spec, parent } = await planNode(ctx, { sessionId, parentNodeId, addToGraph, position });
      // A child edits its parent's image, named by its history file: it counts as an input image of the lane.
      const plan = await planImageJob(
        ctx,
        [{ requestId, fields }],
        { references, ...(parent ? { edit: { image: parent.asset_filename } } : {}) },
        parent ? 'edit' : 'generate',
      );
      return { ...imageJob(plan, requestId), kind: 'node', request: { ...plan.request, node: spec } };
    },
  });

  app.get('/api/node/:nodeId', async (request) =>
    getNode(ctx, parseWith(nodeIdParam, request.params, { what: 'path parameter', hints: HINTS }).nodeId),
  );
};
