import type { QuotaBody } from '../api/quota.js';
import type { StudioContext } from '../context.js';
import { alphaQuota } from './alpha.js';
import { chatQuota } from './chat.js';
import { epsilonQuota } from './epsilon.js';

// `GET /api/quota`: the three probes at once, each within its own budget; a
// probe never fails the whole answer (its bar says what went wrong). Not cached.

export async function readQuota(ctx: StudioContext): Promise<QuotaBody> {
  const [oauth, alpha, epsilon] = await Promise.all([chatQuota(ctx), alphaQuota(ctx), epsilonQuota(ctx)]);
  return { oauth, alpha, epsilon };
}
