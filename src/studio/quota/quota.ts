import { ServiceError } from '../errors.js';
import { quotaBody, type QuotaBody } from '../api/quota.js';
import { LANE_MODULES } from '../catalog/registry.js';
import type { StudioContext } from '../context.js';

// `GET /api/quota`: the probe of every lane that has one (its module's
// `quota`), at once, each within its own budget, under the lane's id; a probe
// never fails the whole answer (its bar says what went wrong). Not cached.

/** The contract's check that the lanes' bars are its bars, no more, no fewer. */
const isQuotaBody = (body: unknown): body is QuotaBody => quotaBody.strict().safeParse(body).success;

export async function readQuota(ctx: StudioContext): Promise<QuotaBody> {
  const bars = await Promise.all(
    LANE_MODULES.flatMap((lane) => (lane.quota ? [lane.quota(ctx).then((result) => [lane.id, result] as const)] : [])),
  );
  const body = Object.fromEntries(bars);
  if (!isQuotaBody(body))
    throw new ServiceError('INTERNAL_ERROR', `The lanes' quota probes (${Object.keys(body).join(', ')}) do not match the contract's bars.`);
  return body;
}
