import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { lazy } from '../../../common/lazy.js';
import { ServiceError } from '../../errors.js';
import { parseWith } from '../../../common/validation.js';
import { MCP_LANES, mcpGenerateRequest } from '../../api/mcp.js';
import { fingerprintOf } from '../../jobs/delivery.js';
import type { StudioRoutes } from '../../routes/plugin.js';
import { mcpLaneOf } from './lanes.js';
import { planMcpGenerate } from './plan.js';
import { mcpLaneStatus } from './servers.js';

// The MCP lanes' routes (spec: POST /api/mcp/generate; contract §3), the
// `routes` both MCP lanes declare (the studio registers a plugin once however
// many lanes declare it). A generation is always asynchronous: planned (every
// check before any tool call), accepted as an `mcp` job (202), then followed
// on /api/events by its requestId: `submitted`, `progress`…, `done` or
// `error`. `GET /api/mcp/models?provider=` lists a lane's models with their
// kind, aspect ratios, input roles and parameters (zeta static, eta live and
// cached).

const modelsQuery = lazy(() => z.object({ provider: z.enum(MCP_LANES) }).strict());

export const mcpRoutes: StudioRoutes = async (app, { ctx }) => {
  app.post('/api/mcp/generate', async (request, reply) => {
    // §3: `parameters` is a record of scalars; anything else is refused with the contract's own code.
    const parameters = (request.body as { parameters?: unknown } | null)?.parameters;
    if (
      parameters !== undefined &&
      (parameters === null ||
        typeof parameters !== 'object' ||
        Array.isArray(parameters) ||
        Object.values(parameters).some((value) => value === null || typeof value === 'object'))
    ) {
      throw new ServiceError('INVALID_MCP_PARAMETERS', 'parameters must be an object of strings, numbers and booleans.', {
        details: { field: 'parameters' },
      });
    }
    const body = parseWith(mcpGenerateRequest, request.body);
    const requestId = body.requestId ?? randomUUID();
    const planned = await planMcpGenerate(ctx, body, requestId);
    await ctx.jobs.submit({
      ...planned,
      ...(body.priority !== undefined ? { priority: body.priority } : {}),
      fingerprint: fingerprintOf('mcp', body),
    });
    return reply.code(202).send({ ok: true, requestId, status: 'accepted', provider: planned.request.lane, kind: planned.request.media });
  });

  app.get('/api/mcp/models', async (request) => {
    const { provider } = parseWith(modelsQuery, request.query);
    const lane = mcpLaneOf(provider);
    if (!lane) throw new ServiceError('MCP_PROVIDER_UNKNOWN', `provider must be ${MCP_LANES.join(' or ')}.`);
    const status = mcpLaneStatus(ctx, lane);
    // eta's catalog is read from its server: a lane that cannot connect lists none, and says why.
    const models = status.state === 'disconnected' ? [] : await lane.models(ctx);
    return { provider, status, catalogAccess: lane.catalogAccess, models };
  });
};
