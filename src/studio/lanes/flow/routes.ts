import { parseWith } from '../../../common/validation.js';
import { flowInspectRequest, flowProbeRequest, flowRegisterRequest } from '../../api/flow.js';
import type { LaneRoutes } from '../types.js';
import { flowCatalog } from './catalog.js';
import { checkOrigin } from './origin.js';
import { closeFlowSockets } from './sockets.js';

// The flow lane's workflow catalog (contract: flow-workflow-catalog §1):
// POST /api/flow/inspect, GET/POST /api/flow/workflows, DELETE
// /api/flow/workflows/:id, POST /api/flow/probe. Errors are the studio's one
// shape with the FLOW_ codes. The lane's shared sockets close with the app.

export const flowRoutes: LaneRoutes = async (app, { ctx }) => {
  const catalog = flowCatalog(ctx);
  app.addHook('onClose', async () => closeFlowSockets(ctx));

  // The demo's workflows (its sample), on the demo's node-graph simulator (whose port changes each start):
  // held for this run only, never written over a workflow of the user's.
  for (const workflow of ctx.demoContent?.flowWorkflows ?? [])
    await catalog.register({ ...workflow, origin: ctx.upstreamUrl('flow') }, { inMemory: true });

  app.post('/api/flow/inspect', async (request) => catalog.inspect(parseWith(flowInspectRequest, request.body ?? {})));

  app.get('/api/flow/workflows', async () => ({ ok: true, workflows: await catalog.list() }));

  app.post('/api/flow/workflows', async (request, reply) => {
    const workflow = await catalog.register(parseWith(flowRegisterRequest, request.body ?? {}));
    return reply.code(201).send({ ok: true, workflow });
  });

  app.delete('/api/flow/workflows/:id', async (request) => {
    const { id } = request.params as { id: string };
    await catalog.delete(id);
    return { ok: true, id };
  });

  app.post('/api/flow/probe', async (request) => {
    const { origin } = parseWith(flowProbeRequest, request.body ?? {});
    const checked = origin !== undefined ? checkOrigin(origin) : catalog.defaultOrigin();
    return { ok: true, origin: checked, health: await catalog.probe(checked, true) };
  });
};
