import { LANE_IDS, type ProviderStatus, type TeamBody } from '../api/index.js';
import { capabilities, withDiscoveredModels } from '../catalog/capabilities.js';
import { LANE_MODULES, LANES } from '../catalog/registry.js';
import type { StudioContext } from '../context.js';
import { laneStatus } from '../catalog/status.js';
import { autoChoice } from '../catalog/auto.js';
import { runtimePort } from '../catalog/ports.js';
import type { LaneStatus } from '../lanes/types.js';
import type { StudioRoutes } from './plugin.js';

/** What each lane says of itself in GET /api/health (alpha: `{ auth }`), under its id; mirrored in the server descriptor. */
export function lanesHealth(ctx: StudioContext): Record<string, unknown> {
  return Object.fromEntries(LANE_MODULES.flatMap((lane) => (lane.health ? [[lane.id, lane.health(ctx)]] : [])));
}

/** Health, capabilities and lane availability. */
export const discoveryRoutes: StudioRoutes = async (app, { ctx }) => {
  // Built with the first request, not at start (every lane's options turned into JSON Schema).
  let body: ReturnType<typeof capabilities> | undefined;

  app.get('/api/health', async () => ({
    ok: true,
    version: ctx.version,
    startedAt: ctx.startedAt,
    demo: ctx.demo,
    // Which studio answered, and what its state is kept in (team mode: several instances on PostgreSQL and S3).
    instance: ctx.instance,
    storage: ctx.storage,
    ...lanesHealth(ctx),
  }));

  app.get('/api/team', async (): Promise<TeamBody> => ({
    instance: ctx.instance,
    storage: ctx.storage,
    instances: (await ctx.jobs.holders()).map((holder) => ({
      instance: holder.owner,
      running: holder.running,
      leaseExpiresAt: new Date(holder.leaseExpiresAt).toISOString(),
      self: holder.owner === ctx.instance,
    })),
  }));

  app.get('/api/capabilities', async () => withDiscoveredModels((body ??= capabilities(ctx.version)), ctx));

  app.get('/api/providers', async (request) => {
    const statuses = await Promise.all(LANE_IDS.map((id) => laneStatus(ctx, id)));
    const providers: ProviderStatus[] = LANE_IDS.map((id, index) => {
      const upstream = ctx.configuredUpstreamUrl(id) ?? null;
      const cooldown = ctx.cooldowns.get(id);
      return {
        id,
        label: LANES[id].label,
        ...statuses[index],
        upstream,
        runtime: runtimePort(upstream),
        ...(cooldown ? { cooldown: { until: new Date(cooldown.until).toISOString(), code: cooldown.code, source: cooldown.source } } : {}),
      };
    });
    // The studio's own port: the one it bound (the descriptor's backend.url), on the host this request named.
    const address = request.server.server.address();
    const port = address && typeof address === 'object' ? address.port : undefined;
    const studio = port === undefined ? null : { origin: `${request.protocol}://${request.hostname}:${port}`, port };
    // Auto's choice from the same statuses: each lane's probe runs once per answer.
    return { providers, studio, auto: await autoChoice(ctx, async (id) => statuses[LANE_IDS.indexOf(id)] as LaneStatus) };
  });
};
