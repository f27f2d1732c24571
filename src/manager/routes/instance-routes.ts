import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { lazy } from '../../common/lazy.js';
import { parseWith } from '../../common/validation.js';
import type { Instances } from '../instances.js';
import { MANAGER_LIMITS } from '../limits.js';

const AddBody = lazy(() => z.object({ url: z.string().min(1).max(300), token: z.string().min(1).max(500).optional() }));
const LaunchBody = lazy(() => z.object({ demo: z.boolean().optional() }));
const IdParams = lazy(() => z.object({ id: z.string().regex(/^w-[0-9a-f]{8}$/, 'not an instance id') }));
const ControlParams = lazy(() => IdParams.extend({ action: z.enum(['start', 'stop', 'restart']) }));
const EventsQuery = lazy(() => z.object({ limit: z.coerce.number().int().min(1).max(MANAGER_LIMITS.recentEventsMax).optional() }));

/** The dashboard's endpoints: the registry, one worker's detail, recent events and health, local workers' lifecycle. */
export function registerInstanceRoutes(app: FastifyInstance, instances: Instances): void {
  app.get('/api/instances', async () => ({ instances: instances.list() }));

  app.post('/api/instances', async (request, reply) => {
    const body = parseWith(AddBody, request.body, { what: 'instance body' });
    return reply.code(201).send({ instance: await instances.add(body.url, body.token) });
  });

  app.post('/api/instances/launch', async (request, reply) => {
    const body = parseWith(LaunchBody, request.body, { what: 'launch body' });
    return reply.code(201).send({ instance: await instances.launch(body.demo ?? false) });
  });

  app.get('/api/instances/:id', async (request) => {
    const { id } = parseWith(IdParams, request.params, { what: 'instance id' });
    return { instance: instances.detail(id) };
  });

  app.delete('/api/instances/:id', async (request) => {
    const { id } = parseWith(IdParams, request.params, { what: 'instance id' });
    await instances.remove(id);
    return { removed: id };
  });

  app.get('/api/instances/:id/events', async (request) => {
    const { id } = parseWith(IdParams, request.params, { what: 'instance id' });
    const { limit } = parseWith(EventsQuery, request.query, { what: 'query' });
    return { events: instances.recentEvents(id, limit ?? MANAGER_LIMITS.recentEventsMax) };
  });

  app.get('/api/instances/:id/health', async (request) => {
    const { id } = parseWith(IdParams, request.params, { what: 'instance id' });
    return { health: instances.healthHistory(id) };
  });

  app.post('/api/instances/:id/:action', async (request) => {
    const { id, action } = parseWith(ControlParams, request.params, { what: 'instance action' });
    return { instance: await instances.control(id, action) };
  });
}
