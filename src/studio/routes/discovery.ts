import { existsSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { capabilities } from '../catalog/capabilities.js';
import { LANES, LANE_IDS, type ProviderLaneId } from '../catalog/lanes.js';
import type { StudioContext } from '../context.js';
import { laneStatus } from '../lanes/status.js';

/** Health, capabilities and lane availability. */
export function registerDiscoveryRoutes(app: FastifyInstance, ctx: StudioContext): void {
  const body = capabilities(ctx.version);

  app.get('/api/health', async () => ({
    ok: true,
    version: ctx.version,
    startedAt: ctx.startedAt,
    demo: ctx.demo,
    alpha: { auth: alphaAuth(ctx) },
  }));

  app.get('/api/capabilities', async () => body);

  app.get('/api/providers', async () => {
    const lanes = LANE_IDS.filter((id): id is ProviderLaneId => id !== 'auto');
    const statuses = await Promise.all(lanes.map((id) => laneStatus(ctx, id)));
    return {
      providers: lanes.map((id, index) => ({
        id,
        label: LANES[id].label,
        ...statuses[index],
        upstream: ctx.upstreamUrl(id) ?? null,
      })),
    };
  });
}

/** Whether an alpha OAuth session is present; mirrored in the server descriptor. */
export const alphaAuth = (ctx: StudioContext): 'oauth' | 'none' => (existsSync(ctx.alphaAuthFile()) ? 'oauth' : 'none');
