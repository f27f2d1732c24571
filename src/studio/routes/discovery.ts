import { LANE_IDS, type ProviderStatus } from '../api/index.js';
import { capabilities, withDiscoveredModels } from '../catalog/capabilities.js';
import { LANES } from '../catalog/registry.js';
import { laneStatus } from '../catalog/status.js';
import { autoChoice } from '../catalog/auto.js';
import { runtimePort } from '../catalog/ports.js';
import { alphaAuth } from '../lanes/alpha/status.js';
import type { LaneStatus } from '../lanes/types.js';
import type { StudioRoutes } from './plugin.js';

/** Whether the alpha session file holds an access token; mirrored in the server descriptor. */
export { alphaAuth };

/** Health, capabilities and lane availability. */
export const discoveryRoutes: StudioRoutes = async (app, { ctx }) => {
  const body = capabilities(ctx.version);

  app.get('/api/health', async () => ({
    ok: true,
    version: ctx.version,
    startedAt: ctx.startedAt,
    demo: ctx.demo,
    alpha: { auth: alphaAuth(ctx) },
  }));

  app.get('/api/capabilities', async () => withDiscoveredModels(body, ctx));

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
