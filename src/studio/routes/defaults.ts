import { parseWith } from '../../common/validation.js';
import { ServiceError } from '../errors.js';
import { defaultsRequest } from '../api/index.js';
import { changeDefaults, effectiveDefaults } from '../defaults.js';
import type { StudioRoutes } from './plugin.js';

/** Persisted defaults: one model and one reasoning effort across the lanes that share them, and a video target. */
export const defaultsRoutes: StudioRoutes = async (app, { ctx }) => {
  app.get('/api/defaults', async () => effectiveDefaults(ctx));

  app.put('/api/defaults', async (request) => {
    const change = parseWith(defaultsRequest, request.body, { code: 'INVALID_SETTING', errors: ServiceError });
    const { defaults, equivalents } = changeDefaults(ctx, change);
    // `equivalents` says which lanes stored another model than the one asked for (its nearest equivalent).
    return Object.keys(equivalents).length ? { ...defaults, equivalents } : defaults;
  });
};
