import type { FastifyPluginAsync } from 'fastify';
import type { StudioContext } from '../context.js';

/** A route family: one Fastify plugin, given the studio's context. */
export type StudioRoutes = FastifyPluginAsync<{ ctx: StudioContext }>;
