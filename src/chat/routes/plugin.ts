import type { FastifyPluginAsync } from 'fastify';
import type { ChatRuntime } from '../runtime.js';
import type { TraceStore } from '../traces/trace-store.js';

/** What the chat server's route families are given. */
export interface ChatRouteOptions {
  readonly runtime: ChatRuntime;
  readonly traces: TraceStore;
  readonly startedAt: string;
}

/** A route family of the chat server: one Fastify plugin. */
export type ChatRoutes = FastifyPluginAsync<ChatRouteOptions>;
