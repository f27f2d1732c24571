import { isRefusal } from '../key-check.js';
import type { KeyCheck } from '../types.js';
import { listAlphaModels } from './status.js';

/** ALPHA_API_KEY (status probe contract §2): the model list with the bearer; an unknown key is a 400 that says so (contract §7). */
export const ALPHA_KEY_CHECK: KeyCheck = {
  form: { pattern: /^xai-[A-Za-z0-9_-]{20,}$/, description: 'starts with xai-' },
  verify: async (ctx, value, options) => void (await listAlphaModels(ctx, value, { lane: 'alpha-api', ...options })),
  refused: (error) =>
    isRefusal(error) || (error.status === 400 && /api[ _]?key/i.test(`${error.vendorCode ?? ''} ${error.vendorMessage ?? ''}`)),
};
